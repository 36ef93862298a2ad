import { formatNumber } from "./arithmetic.js";
import type { Conversation } from "./conversation.js";
import { capitalise, joinWords, listAbout, sentencesAbout, wordsAbout } from "./filler-text.js";
import { introduceItems } from "./introduce-items.js";
import { countSource, countValue } from "./prompt-counts.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";
import { sloganAbout } from "./field-phrases.js";
import { hashText } from "./seeded-random.js";
import { findSubject } from "./subject-phrase.js";
import { summarise } from "./summarise.js";
import { writeNotes } from "./write-notes.js";

/** The most words a "write N words" prompt gets; beyond it a reply would be mostly filler. */
export const MAX_REQUESTED_WORDS = 30_000;
const LONG_WORDS = 350;
const COUNT = countSource(5);
const ECHO =
  /\b(?:say|reply with|respond with|repeat|answer with|output|print|return)\s+(?:back\s+)?(?:exactly|only|just|verbatim)?\s*(?:the\s+(?:word|phrase|text|string)\s*)?:?\s*(?:"([^"]+)"|“([^”]+)”|'([^']+)')/i;
const ECHO_WORD = /\b(?:say|reply with|respond with|answer with)\s+(?:only|just)?\s*the word\s+([\p{L}\p{N}-]+)/iu;
// ECHO_WORD cannot match without this literal, and testing it is far cheaper than the pattern's scan.
const THE_WORD = /the word/i;
const WORDS = new RegExp(String.raw`\b${COUNT}[- ]words?\b`, "i");
const PARAGRAPHS = new RegExp(String.raw`\b${COUNT}\s+paragraphs?\b`, "i");
const SENTENCES = new RegExp(String.raw`\b${COUNT}[- ]sentences?\b`, "i");
const FORM_WORD = new RegExp(`^${COUNT}-(?:words?|sentences?|paragraphs?|lines?|page)$`, "i");
const ONE_LINE = /\b(?:one|a|an|single)\s+(?:[\w-]+\s+)?(?:line|tagline|slogan|blurb|headline|one-liner)\b/i;
const LIST = new RegExp(
  String.raw`\b${COUNT}\s+(?:\w+\s+)?(bullet points|bullets|items|ideas|tips|ways|reasons|examples|names|taglines|slogans|headlines|steps|options|facts|points|things|titles|questions)\b`,
  "i",
);

/** A plain-text reply to the conversation's last user message. */
export function composeText(conversation: Conversation, random: SeededRandom): string {
  const text = conversation.userText;
  const facts = readFacts(text);
  // "two-sentence" says how long the answer is, not what it is about.
  const topic = facts.keywords.filter((word) => !FORM_WORD.test(word)).slice(0, 6);

  const echo = (hasQuote(text) ? ECHO.exec(text) : null) ?? (THE_WORD.test(text) ? ECHO_WORD.exec(text) : null);
  if (echo) return (echo[1] ?? echo[2] ?? echo[3] ?? "").trim();
  const recalled = recall(conversation);
  if (recalled) return recalled;
  const notes = writeNotes(text) ?? introduceItems(text);
  if (notes !== undefined) return notes;
  if (/\b(summari[sz]e|summary|tl;?dr|sum up|in a nutshell)\b/i.test(text)) return summarise(conversation, random);
  const subject = ONE_LINE.test(text) ? findSubject(text) : undefined;
  if (subject) return sloganAbout(subject, hashText(text) % 12);

  const words = WORDS.exec(text);
  if (words) return wordsAbout(topic, Math.min(MAX_REQUESTED_WORDS, countValue(words[1]!)), random);
  const paragraphs = PARAGRAPHS.exec(text);
  if (paragraphs) return wordsAbout(topic, Math.min(MAX_REQUESTED_WORDS, countValue(paragraphs[1]!) * 80), random);
  const sentences = SENTENCES.exec(text);
  if (sentences) return sentencesAbout(topic, Math.min(500, countValue(sentences[1]!)), random).join(" ");
  const list = LIST.exec(text);
  if (list) {
    const noun = list[2]!.toLowerCase();
    const subject = topic.filter((word) => word.toLowerCase() !== noun);
    return listAbout(
      subject,
      Math.min(200, countValue(list[1]!)),
      random,
      /taglines|slogans|headlines|titles|names/.test(noun) ? "slogans" : "points",
    );
  }

  if (facts.arithmetic.length > 0) {
    const [first, ...rest] = facts.arithmetic;
    const answers = facts.arithmetic.map((item) => `${item.expression} = ${formatNumber(item.value)}`);
    return rest.length === 0
      ? `The answer is ${formatNumber(first!.value)} (${answers[0]}).`
      : `${capitalise(joinWords(answers))}.`;
  }
  if (/\b(long|detailed|in depth|in-depth|essay|article|story|thorough)\b/i.test(text))
    return wordsAbout(topic, LONG_WORDS, random);
  if (/\b(brief|briefly|short|one sentence|concise|one line|in a word)\b/i.test(text))
    return sentencesAbout(topic, 1, random)[0]!;
  if (/^\s*(hi|hello|hey|good (morning|afternoon|evening))\b[\s!.,]*$/i.test(text)) {
    return random.pick([
      "Hello! How can I help you today?",
      "Hi there! What would you like to talk about?",
      "Hello! What can I do for you?",
    ]);
  }
  return [opener(text, topic, random), ...sentencesAbout(topic, random.int(2, 3), random)].join(" ");
}

function opener(text: string, topic: readonly string[], random: SeededRandom): string {
  if (topic.length === 0) return random.pick(["Happy to help.", "Sure.", "Here is my take."]);
  const subject = joinWords(topic.slice(0, 3));
  const question =
    /\?\s*$/.test(text) || /^\s*(what|who|why|how|when|where|which|is|are|can|could|should|do|does)\b/i.test(text);
  return question
    ? random.pick([
        `Here is a short answer about ${subject}.`,
        `Good question about ${subject}.`,
        `On ${subject}: here is what matters.`,
      ])
    : random.pick([
        `You mentioned ${subject}.`,
        `Let's talk about ${subject}.`,
        `Here are some thoughts on ${subject}.`,
      ]);
}

// ECHO cannot match without a quote mark, and most prompts have none: cheaper than the pattern's scan.
function hasQuote(text: string): boolean {
  return text.includes('"') || text.includes("“") || text.includes("'");
}

// Answers questions about earlier turns, so multi-turn conversations visibly carry their history.
function recall(conversation: Conversation): string | undefined {
  const text = conversation.userText;
  const earlier = conversation.userTexts.slice(0, -1);
  if (/\bwhat(?:'s| is) my name\b|\bwho am i\b/i.test(text)) {
    for (const previous of [...earlier].reverse()) {
      const name = /\b(?:my name is|call me|i am|i'm)\s+([A-Z][\p{L}-]*)/u.exec(previous);
      if (name) return `Your name is ${name[1]}.`;
    }
    return "You have not told me your name yet.";
  }
  if (/\bwhat did i (?:just )?(?:say|ask|write)\b/i.test(text)) {
    const previous = earlier.at(-1);
    return previous ? `You said: "${previous}"` : "This is the first thing you have said to me.";
  }
  return undefined;
}
