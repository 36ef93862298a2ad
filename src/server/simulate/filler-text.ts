import type { SeededRandom } from "./seeded-random.js";

// Sentence templates about a topic: `{k}` is a keyword, `{o}` another one. Varied enough that a
// reader sees the prompt reflected, plain enough that the text reads like a model's.
const TEMPLATES = [
  "{K} is worth a closer look.",
  "When it comes to {k}, the details matter more than the headline.",
  "A practical view of {k} starts with what you want to achieve.",
  "{K} and {o} are more closely connected than they first appear.",
  "Most people underestimate how much {k} depends on context.",
  "A simple first step is to write down what {k} means for you.",
  "The trade-offs around {k} are easier to see with a concrete example.",
  "In short, {k} rewards patience and clear goals.",
  "It helps to compare {k} with {o} before deciding anything.",
  "Good results with {k} usually come from small, steady improvements.",
  "There is no single right answer about {k}, but some patterns hold.",
  "Start with the basics of {k}, then build up from there.",
  "Experts tend to agree that {k} is shaped by {o}.",
  "One useful question is how {k} changes over time.",
  "The history of {k} explains a lot about where it stands today.",
  "Seen from the outside, {k} looks simple; up close it has many moving parts.",
  "A common mistake is to treat {k} and {o} as the same thing.",
  "If you remember one thing about {k}, make it this: context decides.",
] as const;

/** One sentence about the keywords. */
export function sentenceAbout(keywords: readonly string[], random: SeededRandom): string {
  const topic = keywords.length > 0 ? random.pick(keywords) : "this topic";
  const others = keywords.filter((keyword) => keyword !== topic);
  const other = others.length > 0 ? random.pick(others) : "the wider picture";
  const template = random.pick(TEMPLATES);
  return template.replace("{K}", capitalise(topic)).replace("{k}", topic).replace("{o}", other);
}

const RECENT = 8;

/** A sentence about the keywords that is not among the recent ones (when a few tries allow). */
function freshSentence(keywords: readonly string[], recent: string[], random: SeededRandom): string {
  let sentence = sentenceAbout(keywords, random);
  for (let attempt = 0; attempt < 6 && recent.includes(sentence); attempt++) sentence = sentenceAbout(keywords, random);
  recent.push(sentence);
  if (recent.length > RECENT) recent.shift();
  return sentence;
}

/** Sentences about the keywords, avoiding repeats among the last few. */
export function sentencesAbout(keywords: readonly string[], count: number, random: SeededRandom): string[] {
  const recent: string[] = [];
  return Array.from({ length: count }, () => freshSentence(keywords, recent, random));
}

/** Text of exactly `wordCount` words about the keywords, in paragraphs of about 80 words. */
export function wordsAbout(keywords: readonly string[], wordCount: number, random: SeededRandom): string {
  const paragraphs: string[] = [];
  let paragraph: string[] = [];
  let paragraphWords = 0;
  let total = 0;
  const recent: string[] = [];
  while (total < wordCount) {
    const sentence = freshSentence(keywords, recent, random).split(" ");
    const taken = sentence.slice(0, wordCount - total);
    if (taken.length < sentence.length) taken[taken.length - 1] = `${taken.at(-1)!.replace(/[,.;:]$/, "")}.`;
    paragraph.push(taken.join(" "));
    paragraphWords += taken.length;
    total += taken.length;
    if (paragraphWords >= 80) {
      paragraphs.push(paragraph.join(" "));
      paragraph = [];
      paragraphWords = 0;
    }
  }
  if (paragraph.length > 0) paragraphs.push(paragraph.join(" "));
  return paragraphs.join("\n\n");
}

const SLOGANS = [
  "{K}, made simple.",
  "Brighter days start with {k}.",
  "Your {k}, your rules.",
  "{K} for every adventure.",
  "Small {k}, big difference.",
  "Meet the {k} you'll love.",
  "{K}: built to last.",
  "Think {k}. Think ahead.",
  "Everything better with {k}.",
  "The {k} that keeps up with you.",
];

/** A numbered list of `count` items about the keywords: points with a sentence each, or short slogans. */
export function listAbout(
  keywords: readonly string[],
  count: number,
  random: SeededRandom,
  kind: "points" | "slogans" = "points",
): string {
  const openers = ["Start with", "Think about", "Look at", "Consider", "Compare", "Review", "Test", "Plan for"];
  const items: string[] = [];
  const used = new Set<string>();
  for (let index = 0; index < count; index++) {
    const topic = keywords.length > 0 ? keywords[index % keywords.length]! : "the basics";
    if (kind === "slogans") {
      let slogan = random.pick(SLOGANS);
      for (let attempt = 0; attempt < 8 && used.has(slogan); attempt++) slogan = random.pick(SLOGANS);
      used.add(slogan);
      items.push(`${index + 1}. ${slogan.replace("{K}", capitalise(topic)).replace("{k}", topic)}`);
    } else {
      items.push(
        `${index + 1}. ${random.pick(openers)} ${topic}: ${lowerFirst(sentenceAbout([topic], random), topic)}`,
      );
    }
  }
  return items.join("\n");
}

/** The first letter in upper case. */
export function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

/** Every word's first letter in capitals ("solar lantern jingle" gives "Solar Lantern Jingle"). */
export function titleCase(text: string): string {
  return text.replace(/(^|\s)(\p{Ll})/gu, (_, space: string, letter: string) => `${space}${letter.toUpperCase()}`);
}

// Mid-sentence, a template's first word loses its capital but a topic keeps its own spelling.
function lowerFirst(sentence: string, topic: string): string {
  if (sentence.startsWith(capitalise(topic))) return topic + sentence.slice(topic.length);
  return sentence.length === 0 ? sentence : sentence[0]!.toLowerCase() + sentence.slice(1);
}

/** "a", "a and b", "a, b and c". */
export function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
