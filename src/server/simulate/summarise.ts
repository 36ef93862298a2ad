import type { Conversation } from "./conversation.js";
import { joinWords } from "./filler-text.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";

const MIN_SOURCE_WORDS = 12;
const MAX_SENTENCE_WORDS = 40;

/** An extractive summary: the opening sentence and the one that shares most key words with the rest. */
export function summarise(conversation: Conversation, random: SeededRandom): string {
  const source = sourceText(conversation);
  const sentences = source
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => wordCount(sentence) >= 3);
  if (sentences.length === 0) return "There is nothing to summarise yet: send the text to condense.";
  const keywords = readFacts(source).keywords.map((keyword) => keyword.toLowerCase());
  const [first, ...rest] = sentences;
  const best = rest
    .filter((sentence) => sentence !== first)
    .reduce<string | undefined>((top, sentence) => (top === undefined || score(sentence, keywords) > score(top, keywords) ? sentence : top), undefined);
  const picked = [first!, ...(best ? [best] : [])].map(shorten);
  const lead = random.pick(["In short:", "Summary:", "The gist:"]);
  const themes = keywords.length > 0 ? ` Key themes: ${joinWords(readFacts(source).keywords.slice(0, 3))}.` : "";
  return `${lead} ${picked.join(" ")}${themes}`;
}

// A module function, not a closure per summary: tsx names every closure it keeps (a defineProperty).
function score(sentence: string, keywords: readonly string[]): number {
  const lower = sentence.toLowerCase();
  return keywords.filter((keyword) => lower.includes(keyword)).length;
}

function sourceText(conversation: Conversation): string {
  const text = conversation.userText;
  const split = /[:\n]/.exec(text);
  const after = split ? text.slice(split.index + 1).trim() : "";
  if (wordCount(after) >= MIN_SOURCE_WORDS) return after;
  if (wordCount(text) >= MIN_SOURCE_WORDS * 2) return text;
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

// Exactly the characters of the `\s` class.
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

function shorten(sentence: string): string {
  // A sentence (trimmed) of few words is kept whole; only a long one is split into words.
  if (wordCount(sentence) <= MAX_SENTENCE_WORDS) return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
  const words = sentence.split(/\s+/);
  return `${words.slice(0, MAX_SENTENCE_WORDS).join(" ").replace(/[,;:]$/, "")}...`;
}
