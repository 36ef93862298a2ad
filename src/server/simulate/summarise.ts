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
    .filter((sentence) => sentence.split(/\s+/).length >= 3);
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

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function shorten(sentence: string): string {
  const words = sentence.split(/\s+/);
  if (words.length <= MAX_SENTENCE_WORDS) return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
  return `${words.slice(0, MAX_SENTENCE_WORDS).join(" ").replace(/[,;:]$/, "")}...`;
}
