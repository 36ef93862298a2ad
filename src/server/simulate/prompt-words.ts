// The word-level readers of prompt facts: keywords, named entities and places.
import { isSpace } from "./is-space.js";
import { STOPWORDS, STARTERS } from "./stopwords.js";

const WORD_PATTERN = /[\p{L}][\p{L}\p{N}'’-]*/gu;
// Digits belong to a name ("SL-100", "Route 66" stays two), so a product code is not cut at its first digit.
const CAPITALISED = /\b([A-Z][\p{L}\p{N}'-]*(?:\s+(?:de|del|la|of|the|von|van)?\s*[A-Z][\p{L}\p{N}'-]*)*)/gu;
const OBJECT_PATTERN = /\b(?:in|for|at|near|from|to)\s+((?:[a-z][\p{L}-]*)(?:\s*(?:,|and|&)\s*[a-z][\p{L}-]*)*)/gu;
const TOPIC_PATTERN =
  /\b(?:about|regarding|on the subject of|on|for)\s+(?:the\s+|a\s+|an\s+)?([^.,;:!?\n"]{3,60}?)(?=\s+(?:and|with|for|in|that|which|please)\b|[.,;:!?\n"]|$)/i;

/** Content words of a text, the given entities first, without repeats or stopwords. */
export function findKeywords(text: string, entities: readonly string[]): string[] {
  const topic = topicPhrase(text);
  // Most prompts have no topic phrase: then no word is checked against it.
  const topicWords = topic === undefined ? undefined : ` ${topic.toLowerCase()} `;
  // One pass that drops repeats as it goes, rather than lists filtered and then deduplicated:
  // every unique prompt pays for this.
  const keywords: string[] = [];
  const seen = new Set<string>();
  if (topic) addUnique(keywords, seen, topic, topic.toLowerCase());
  for (const entity of entities) {
    const lower = entity.toLowerCase();
    if (!inTopic(lower, topicWords)) addUnique(keywords, seen, entity, lower);
  }
  for (const match of wordsOf(text)) {
    // Trimming only shortens a word: a short match needs no trimming to be skipped.
    if (match.length < 3) continue;
    const word = trimTrailingMarks(match);
    if (word.length < 3) continue;
    const lower = word.toLowerCase();
    if (!STOPWORDS.has(lower) && !inTopic(lower, topicWords)) addUnique(keywords, seen, word, lower);
  }
  return keywords;
}

/** The words of a text: a letter, then letters, digits, apostrophes and hyphens (`WORD_PATTERN`'s matches). */
export function wordsOf(text: string): string[] {
  // Scanned by hand in ASCII text, where the pattern's classes are a few ranges: several times
  // faster than the Unicode pattern, which text with other characters still goes through.
  const words: string[] = [];
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return text.match(WORD_PATTERN) ?? [];
    const letter = (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
    if (start < 0) {
      if (letter) start = index;
    } else if (!letter && !(code >= 0x30 && code <= 0x39) && code !== 0x27 && code !== 0x2d) {
      words.push(text.slice(start, index));
      start = -1;
    }
  }
  if (start >= 0) words.push(text.slice(start));
  return words;
}

// Keeps the first spelling of a word, ignoring case.
function addUnique(values: string[], seen: Set<string>, value: string, lower: string): void {
  if (seen.has(lower)) return;
  seen.add(lower);
  values.push(value);
}

// A loop rather than `replace(/['’-]+$/, "")`: most words end in a letter, and this runs per word.
function trimTrailingMarks(word: string): string {
  let end = word.length;
  while (end > 0 && isTrailingMark(word.charCodeAt(end - 1))) end--;
  return end === word.length ? word : word.slice(0, end);
}

// ' ’ -
function isTrailingMark(code: number): boolean {
  return code === 0x27 || code === 0x2019 || code === 0x2d;
}

function inTopic(lower: string, topicWords: string | undefined): boolean {
  return topicWords?.includes(` ${lower} `) === true;
}

// "about solar lanterns" names the topic better than its words apart.
function topicPhrase(text: string): string | undefined {
  const phrase = TOPIC_PATTERN.exec(text)?.[1]?.trim();
  if (!phrase) return undefined;
  const words = phrase.split(/\s+/);
  if (words.length < 2 || words.length > 4 || words.every((word) => STOPWORDS.has(word.toLowerCase())))
    return undefined;
  return /^[\p{L}][\p{L}\p{N}' -]*$/u.test(phrase) ? phrase : undefined;
}

const PLACE_BEFORE = /\b(?:in|at|from|to|near|around|visit|visiting|across|between)\s+(?:the\s+)?$/i;
const LIST_BEFORE = /(?:,|\band|\bor|&)\s*$/i;

/** The entities written as places ("in Paris", "from Lima and Quito"). */
export function findPlaces(text: string, entities: readonly string[]): string[] {
  const places: string[] = [];
  const positioned = entities
    .map((entity) => ({
      entity,
      at: text.search(new RegExp(`(?<![\\p{L}])${entity.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}])`, "iu")),
    }))
    .filter((entry) => entry.at >= 0)
    .sort((a, b) => a.at - b.at);
  let previousWasPlace = false;
  for (const { entity, at } of positioned) {
    const before = text.slice(Math.max(0, at - 24), at);
    const place: boolean = PLACE_BEFORE.test(before) || (previousWasPlace && LIST_BEFORE.test(before));
    if (place) places.push(entity);
    previousWasPlace = place;
  }
  return places;
}

/** Proper names and places, or the objects of in/for/at when nothing is capitalised. */
export function findEntities(text: string): string[] {
  const found: string[] = [];
  // exec over the shared pattern rather than matchAll, which clones the pattern on every call.
  CAPITALISED.lastIndex = 0;
  for (let match = CAPITALISED.exec(text); match !== null; match = CAPITALISED.exec(text)) {
    // Most names are one word: splitting it would give it back alone.
    const words = hasSpace(match[1]!) ? match[1]!.split(/\s+/) : [match[1]!];
    while (words.length > 0 && (STARTERS.has(words[0]!) || STOPWORDS.has(words[0]!.toLowerCase()))) words.shift();
    const entity = words.join(" ");
    if (entity.length >= 2) found.push(entity);
  }
  if (found.length === 0) {
    OBJECT_PATTERN.lastIndex = 0;
    for (let match = OBJECT_PATTERN.exec(text); match !== null; match = OBJECT_PATTERN.exec(text)) {
      for (const word of match[1]!.split(/\s*(?:,|\band\b|&)\s*/)) {
        const clean = word.trim();
        if (clean.length >= 3 && !STOPWORDS.has(clean)) found.push(clean[0]!.toUpperCase() + clean.slice(1));
      }
    }
  }
  return unique(found, true);
}

/** Every match of a global pattern: the whole match, or one group. */
export function matches(text: string, pattern: RegExp, group: number): string[] {
  return [...text.matchAll(pattern)].map((match) => match[group]!.trim()).filter((value) => value !== "");
}

/** The values without repeats, first occurrence kept (optionally ignoring case). */
export function unique(values: readonly string[], ignoreCase = false): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const value of values) addUnique(result, seen, value, ignoreCase ? value.toLowerCase() : value);
  return result;
}

function hasSpace(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (isSpace(text.charCodeAt(index))) return true;
  return false;
}
