// How many of something a prompt asks for: "three taglines", "a three-sentence summary".
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
};
const COUNT = countSource(3);
const LIST_NOUN = new RegExp(
  String.raw`\b${COUNT}\s+(?:[\w-]+\s+){0,2}?(taglines|slogans|headlines|titles|names|ideas|keywords|tags|topics|colou?rs|questions|options|captions|bullets|points|items|words)\b`,
  "i",
);

/** A count in a prompt as a regex source with one group: up to `digits` digits, or a number word. */
export function countSource(digits: number): string {
  return String.raw`(\d{1,${digits}}|${Object.keys(NUMBER_WORDS).join("|")})`;
}

/** The value of a count word or number ("three", "3"). */
export function countValue(word: string): number {
  return NUMBER_WORDS[word.toLowerCase()] ?? Number(word);
}

/** The plural noun of the first list the prompt asks for, with its count ("Three taglines ..." gives taglines, 3). */
export function requestedList(text: string): { noun: string; count: number } | undefined {
  const match = LIST_NOUN.exec(text);
  return match ? { noun: match[2]!.toLowerCase(), count: countValue(match[1]!) } : undefined;
}

/** How many items the prompt asks for under a field's name ("three keywords" for `keywords`). */
export function requestedCount(text: string, field: string): number | undefined {
  const stem = field.replace(/_/g, " ").replace(/(ies|es|s)$/, "");
  if (stem.length < 3) return undefined;
  const pattern = new RegExp(
    String.raw`\b${COUNT}\s+(?:[\w-]+\s+){0,2}?${stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\w*`,
    "i",
  );
  const match = pattern.exec(text);
  return match ? countValue(match[1]!) : undefined;
}

/** The sentences a prompt asks for ("a three-sentence summary", "in two sentences"). */
export function requestedSentences(text: string): number | undefined {
  const match = new RegExp(String.raw`\b${COUNT}[- ]sentences?\b`, "i").exec(text);
  return match ? countValue(match[1]!) : undefined;
}
