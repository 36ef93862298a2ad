import { STOPWORDS } from "./stopwords.js";

/** What a prompt is about, in the forms a sentence needs. */
export interface Subject {
  /** Without an article: "solar lantern", "Lumo". */
  readonly bare: string;
  /** With an indefinite article where a common noun needs one: "a solar lantern", "Lumo". */
  readonly indefinite: string;
  /** With "the" where a common noun needs it: "the solar lantern", "Lumo". */
  readonly definite: string;
}

const FOR_PHRASE =
  /\b(?:for|about|of)\s+(an?\s+|the\s+)?([^.,;:!?\n()"'`[\]{}]{2,60}?)(?=[.,;:!?\n()"'`[\]{}]|\s+(?:with|that|which|and then|in|at|to|from|by|for|about|of)\b|$)/gi;
const THIS_NOUN =
  /\b(?:this|the|my|our)\s+((?:voice\s+)?memo|photo|image|picture|recording|clip|song|track|video|product|poster|document|file)\b/i;
const MAX_WORDS = 5;
// Words that open a phrase about size or form rather than the thing itself ("of at most eight words").
const NOT_A_SUBJECT =
  /^(?:at|most|least|up|no|more|less|around|about|each|every|one|two|three|four|five|six|seven|eight|nine|ten|\d+)(?:\s|$)/i;
const FORM_WORDS = /\b(?:words?|sentences?|characters?|lines?|paragraphs?|items?|seconds?|minutes?)$/i;

/** The thing a prompt is about ("Three taglines for a solar lantern" gives "solar lantern"), if it names one. */
export function findSubject(text: string): Subject | undefined {
  FOR_PHRASE.lastIndex = 0;
  for (let match = FOR_PHRASE.exec(text); match !== null; match = FOR_PHRASE.exec(text)) {
    const phrase = tidy(match[2]!);
    if (phrase === undefined || NOT_A_SUBJECT.test(phrase) || FORM_WORDS.test(phrase)) continue;
    return subjectOf(phrase, match[1]?.trim().toLowerCase());
  }
  const noun = THIS_NOUN.exec(text)?.[1];
  return noun === undefined ? undefined : subjectOf(noun.toLowerCase().replace(/\s+/g, " "), "the");
}

/** The forms of a subject phrase, given the article it came with. */
export function subjectOf(phrase: string, article?: string): Subject {
  // "Lumo" or "Acme Lamp" is a name; "Travel kettle" is a common noun written as a title.
  const proper =
    article === undefined &&
    /^[A-Z0-9]/.test(phrase) &&
    phrase.split(/\s+/).every((word) => /^[\p{Lu}\p{N}]/u.test(word));
  if (proper) return { bare: phrase, indefinite: phrase, definite: phrase };
  if (article === undefined && /^\p{Lu}\p{Ll}/u.test(phrase)) phrase = phrase[0]!.toLowerCase() + phrase.slice(1);
  const indefinite =
    article === "a" || article === "an" ? `${article} ${phrase}` : `${/^[aeiou]/i.test(phrase) ? "an" : "a"} ${phrase}`;
  return { bare: phrase, indefinite, definite: `the ${phrase}` };
}

function tidy(phrase: string): string | undefined {
  const words = phrase.trim().split(/\s+/).slice(0, MAX_WORDS);
  while (words.length > 0 && STOPWORDS.has(words.at(-1)!.toLowerCase())) words.pop();
  while (words.length > 0 && STOPWORDS.has(words[0]!.toLowerCase()) && !/^[A-Z]/.test(words[0]!)) words.shift();
  const joined = words.join(" ");
  return joined.length >= 2 ? joined : undefined;
}
