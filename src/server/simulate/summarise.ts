import type { Conversation } from "./conversation.js";
import { joinWords } from "./filler-text.js";
import { isSpace } from "./is-space.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";

const MIN_SOURCE_WORDS = 12;
const MAX_SENTENCE_WORDS = 40;

const LEADS = ["In short:", "Summary:", "The gist:"];
const LINE_FEED = 0x0a;

/** An extractive summary: the opening sentence and the one that shares most key words with the rest. */
export function summarise(conversation: Conversation, random: SeededRandom): string {
  const source = sourceText(conversation);
  const sentences: string[] = [];
  for (const part of splitSentences(source)) {
    const sentence = part.trim();
    if (wordCount(sentence) >= 3) sentences.push(sentence);
  }
  if (sentences.length === 0) return "There is nothing to summarise yet: send the text to condense.";
  const found = readFacts(source).keywords;
  const first = sentences[0]!;
  const best = bestSentence(sentences, found);
  const picked = best === undefined ? shorten(first) : `${shorten(first)} ${shorten(best)}`;
  const lead = random.pick(LEADS);
  const themes = found.length > 0 ? ` Key themes: ${joinWords(found.slice(0, 3))}.` : "";
  return `${lead} ${picked}${themes}`;
}

// Among the sentences after the first (and unlike it), the first one with the most key words.
function bestSentence(sentences: readonly string[], found: readonly string[]): string | undefined {
  if (sentences.length < 2) return undefined;
  const keywords = found.map((keyword) => keyword.toLowerCase());
  let best: string | undefined;
  let bestScore = -1;
  for (let index = 1; index < sentences.length; index++) {
    const sentence = sentences[index]!;
    if (sentence === sentences[0]) continue;
    const sentenceScore = score(sentence, keywords);
    if (sentenceScore > bestScore) {
      best = sentence;
      bestScore = sentenceScore;
    }
  }
  return best;
}

function score(sentence: string, keywords: readonly string[]): number {
  const lower = sentence.toLowerCase();
  let count = 0;
  for (const keyword of keywords) if (lower.includes(keyword)) count++;
  return count;
}

// Cuts where `split(/(?<=[.!?])\s+|\n+/)` does: at spaces after an end mark, or at line feeds.
// A loop: that pattern's lookbehind, tried at every position, was a large share of a short summary.
function splitSentences(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const afterEnd = index > 0 && isSentenceEnd(text.charCodeAt(index - 1)) && isSpace(code);
    if (!afterEnd && code !== LINE_FEED) continue;
    let end = index + 1;
    while (end < text.length && (afterEnd ? isSpace(text.charCodeAt(end)) : text.charCodeAt(end) === LINE_FEED)) end++;
    parts.push(text.slice(start, index));
    start = end;
    index = end - 1;
  }
  parts.push(text.slice(start));
  return parts;
}

function isSentenceEnd(code: number): boolean {
  return code === 0x2e || code === 0x21 || code === 0x3f;
}

function sourceText(conversation: Conversation): string {
  const text = conversation.userText;
  const split = /[:\n]/.exec(text);
  const after = split ? text.slice(split.index + 1).trim() : "";
  if (wordCount(after) >= MIN_SOURCE_WORDS) return after;
  if (wordCount(text) >= MIN_SOURCE_WORDS * 2) return text;
  if (conversation.userTexts.length < 2) return text;
  const earlier = conversation.userTexts.slice(0, -1).join("\n");
  return wordCount(earlier) > 0 ? earlier : text;
}

// Counts runs of non-space characters (as `split(/\s+/)` sees them) without building the words.
function wordCount(text: string): number {
  let count = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    const space = isSpace(text.charCodeAt(index));
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

function shorten(sentence: string): string {
  // A sentence (trimmed) of few words is kept whole; only a long one is split into words.
  if (wordCount(sentence) <= MAX_SENTENCE_WORDS) return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
  const words = sentence.split(/\s+/);
  return `${words
    .slice(0, MAX_SENTENCE_WORDS)
    .join(" ")
    .replace(/[,;:]$/, "")}...`;
}
