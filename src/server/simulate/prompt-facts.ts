import { findArithmetic, type Arithmetic } from "./arithmetic.js";
import { STOPWORDS, STARTERS } from "./stopwords.js";

/** What can be read off a prompt to fill tool arguments and JSON fields. */
export interface PromptFacts {
  readonly text: string;
  /** Content words, named entities first, without repeats. */
  readonly keywords: readonly string[];
  /** Proper names and places ("Paris", "New York"), or objects of "in/for/at" when nothing is capitalised. */
  readonly entities: readonly string[];
  /** Entities written as places ("in Paris", "from Lima and Quito"). */
  readonly places: readonly string[];
  /** Entities that are not places: people, organisations, titles. */
  readonly others: readonly string[];
  readonly quoted: readonly string[];
  readonly numbers: readonly number[];
  readonly arithmetic: readonly Arithmetic[];
  readonly urls: readonly string[];
  readonly emails: readonly string[];
  readonly paths: readonly string[];
  /** ISO dates (YYYY-MM-DD) in the text. */
  readonly dates: readonly string[];
}

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>`]+[^\s"'<>`.,;:!?)\]]/gi;
const EMAIL_PATTERN = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
const PATH_PATTERN = /(?:^|[\s"'`(])((?:~|\.{1,2})?\/?(?:[\w.-]+\/)*[\w-][\w.-]*\.[a-z][a-z0-9]{0,4}|(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]+)+)(?=$|[\s"'`),;:!?]|\.(?:\s|$))/gim;
const QUOTED_PATTERN = /"([^"\n]{1,400})"|“([^”\n]{1,400})”|`([^`\n]{1,400})`|(?:^|[\s(:])'([^'\n]{1,400})'(?=$|[\s.,;:!?)])/g;
const DATE_PATTERN = /\b\d{4}-\d{2}-\d{2}\b/g;
const NUMBER_PATTERN = /(?<![\w.])-?\d+(?:\.\d+)?(?![\w])/g;
const WORD_PATTERN = /[\p{L}][\p{L}\p{N}'’-]*/gu;
const CAPITALISED = /\b([A-Z][\p{L}'-]*(?:\s+(?:de|del|la|of|the|von|van)?\s*[A-Z][\p{L}'-]*)*)/gu;
const OBJECT_PATTERN = /\b(?:in|for|at|near|from|to)\s+((?:[a-z][\p{L}-]*)(?:\s*(?:,|and|&)\s*[a-z][\p{L}-]*)*)/gu;

const TOPIC_PATTERN = /\b(?:about|regarding|on the subject of|on|for)\s+(?:the\s+|a\s+|an\s+)?([^.,;:!?\n"]{3,60}?)(?=\s+(?:and|with|for|in|that|which|please)\b|[.,;:!?\n"]|$)/i;

const MAX_READ_CHARS = 50_000;
const MAX_CACHED_CHARS = 20_000;
const MAX_CACHED = 256;
// A power of two, so a hash picks its slot with a mask.
const SEEN_SLOTS = 1024;
const RECENT = 4;
const cache = new Map<string, PromptFacts>();
// Hashes of texts read once, by slot; a collision only delays or hastens caching a text.
const seen = new Uint32Array(SEEN_SLOTS);
// The last few texts read: one request reads its prompt from several modules.
const recent: LazyFacts[] = [];

/** Reads facts from a text; repeated texts (a conversation's history) are read once. */
export function readFacts(text: string): PromptFacts {
  for (const facts of recent) if (facts.source === text) return facts;
  const cached = cache.get(text);
  if (cached) return cached;
  // A book-length prompt is read from its start: enough to find what it is about, and bounded.
  const facts = new LazyFacts(text.length > MAX_READ_CHARS ? text.slice(0, MAX_READ_CHARS) : text, text);
  if (recent.length >= RECENT) recent.shift();
  recent.push(facts);
  // Kept across requests from the second time a text comes, like the reply cache: caching every
  // one-off prompt for 256 requests made the garbage collector copy each one through collections.
  if (text.length <= MAX_CACHED_CHARS) {
    const hash = fnv1a(text);
    const slot = hash & (SEEN_SLOTS - 1);
    if (seen[slot] !== hash) seen[slot] = hash;
    else {
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
      cache.set(text, facts);
    }
  }
  return facts;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

// Each fact is read on first use: a plain reply needs only the keywords, and every regex pass
// over the prompt is paid per request.
class LazyFacts implements PromptFacts {
  readonly text: string;
  #withoutLinks: string | undefined;
  #urls: string[] | undefined;
  #emails: string[] | undefined;
  #paths: string[] | undefined;
  #quoted: string[] | undefined;
  #entities: string[] | undefined;
  #keywords: string[] | undefined;
  #places: string[] | undefined;
  #others: string[] | undefined;
  #numbers: number[] | undefined;
  #arithmetic: Arithmetic[] | undefined;
  #dates: string[] | undefined;

  /** The text as given, before a book-length one was cut. */
  readonly source: string;

  constructor(text: string, source: string) {
    this.text = text;
    this.source = source;
  }

  // Most prompts have no links: a substring check is cheaper than the pattern's scan.
  get urls(): string[] {
    return (this.#urls ??= this.text.includes("://") ? unique(matches(this.text, URL_PATTERN, 0)) : []);
  }

  get emails(): string[] {
    return (this.#emails ??= this.text.includes("@") ? unique(matches(this.text, EMAIL_PATTERN, 0)) : []);
  }

  get paths(): string[] {
    return (this.#paths ??= unique(matches(this.#textWithoutLinks(), PATH_PATTERN, 1)).filter((path) => !/^\d+(\.\d+)*$/.test(path)));
  }

  get quoted(): string[] {
    this.#quoted ??= unique([...this.text.matchAll(QUOTED_PATTERN)].map((match) => (match[1] ?? match[2] ?? match[3] ?? match[4] ?? "").trim()))
      .filter((value) => value !== "");
    return this.#quoted;
  }

  get entities(): string[] {
    return (this.#entities ??= findEntities(this.#textWithoutLinks()));
  }

  get keywords(): string[] {
    return (this.#keywords ??= findKeywords(this.#textWithoutLinks(), this.entities));
  }

  get places(): string[] {
    return (this.#places ??= findPlaces(this.#textWithoutLinks(), this.entities));
  }

  get others(): string[] {
    return (this.#others ??= this.entities.filter((entity) => !this.places.includes(entity)));
  }

  get numbers(): number[] {
    return (this.#numbers ??= matches(this.#textWithoutLinks().replace(DATE_PATTERN, " "), NUMBER_PATTERN, 0).map(Number));
  }

  get arithmetic(): Arithmetic[] {
    return (this.#arithmetic ??= findArithmetic(this.#textWithoutLinks()));
  }

  get dates(): string[] {
    return (this.#dates ??= unique(matches(this.text, DATE_PATTERN, 0)));
  }

  #textWithoutLinks(): string {
    return (this.#withoutLinks ??= this.urls.concat(this.emails).reduce((rest, link) => rest.split(link).join(" "), this.text));
  }
}

function findKeywords(text: string, entities: readonly string[]): string[] {
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
  for (const match of text.match(WORD_PATTERN) ?? []) {
    const word = trimTrailingMarks(match);
    if (word.length < 3) continue;
    const lower = word.toLowerCase();
    if (!STOPWORDS.has(lower) && !inTopic(lower, topicWords)) addUnique(keywords, seen, word, lower);
  }
  return keywords;
}

// Keeps the first spelling of a word, ignoring case.
function addUnique(values: string[], seen: Set<string>, value: string, lower: string): void {
  if (seen.has(lower)) return;
  seen.add(lower);
  values.push(value);
}

const TRAILING_MARKS = "'’-";

// A loop rather than `replace(/['’-]+$/, "")`: most words end in a letter, and this runs per word.
function trimTrailingMarks(word: string): string {
  let end = word.length;
  while (end > 0 && TRAILING_MARKS.includes(word[end - 1]!)) end--;
  return end === word.length ? word : word.slice(0, end);
}

function inTopic(lower: string, topicWords: string | undefined): boolean {
  return topicWords !== undefined && topicWords.includes(` ${lower} `);
}

// "about solar lanterns" names the topic better than its words apart.
function topicPhrase(text: string): string | undefined {
  const phrase = TOPIC_PATTERN.exec(text)?.[1]?.trim();
  if (!phrase) return undefined;
  const words = phrase.split(/\s+/);
  if (words.length < 2 || words.length > 4 || words.every((word) => STOPWORDS.has(word.toLowerCase()))) return undefined;
  return /^[\p{L}][\p{L}\p{N}' -]*$/u.test(phrase) ? phrase : undefined;
}

const PLACE_BEFORE = /\b(?:in|at|from|to|near|around|visit|visiting|across|between)\s+(?:the\s+)?$/i;
const LIST_BEFORE = /(?:,|\band|\bor|&)\s*$/i;

function findPlaces(text: string, entities: readonly string[]): string[] {
  const places: string[] = [];
  const positioned = entities
    .map((entity) => ({ entity, at: text.search(new RegExp(`(?<![\\p{L}])${entity.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}])`, "iu")) }))
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

function findEntities(text: string): string[] {
  const found: string[] = [];
  // exec over the shared pattern rather than matchAll, which clones the pattern on every call.
  CAPITALISED.lastIndex = 0;
  for (let match = CAPITALISED.exec(text); match !== null; match = CAPITALISED.exec(text)) {
    const words = match[1]!.split(/\s+/);
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

function matches(text: string, pattern: RegExp, group: number): string[] {
  return [...text.matchAll(pattern)].map((match) => match[group]!.trim()).filter((value) => value !== "");
}

function unique(values: readonly string[], ignoreCase = false): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const value of values) addUnique(result, seen, value, ignoreCase ? value.toLowerCase() : value);
  return result;
}
