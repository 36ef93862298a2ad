import { findArithmetic, type Arithmetic } from "./arithmetic.js";
import { findEntities, findKeywords, findPlaces, matches, unique } from "./prompt-words.js";

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
const PATH_PATTERN =
  /(?:^|[\s"'`(])((?:~|\.{1,2})?\/?(?:[\w.-]+\/)*[\w-][\w.-]*\.[a-z][a-z0-9]{0,4}|(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]+)+)(?=$|[\s"'`),;:!?]|\.(?:\s|$))/gim;
const QUOTED_PATTERN =
  /"([^"\n]{1,400})"|“([^”\n]{1,400})”|`([^`\n]{1,400})`|(?:^|[\s(:])'([^'\n]{1,400})'(?=$|[\s.,;:!?)])/g;
const DATE_PATTERN = /\b\d{4}-\d{2}-\d{2}\b/g;
const NUMBER_PATTERN = /(?<![\w.])-?\d+(?:\.\d+)?(?![\w])/g;

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
    return (this.#paths ??= unique(matches(this.#textWithoutLinks(), PATH_PATTERN, 1)).filter(
      (path) => !/^\d+(\.\d+)*$/.test(path),
    ));
  }

  get quoted(): string[] {
    this.#quoted ??= unique(
      [...this.text.matchAll(QUOTED_PATTERN)].map((match) =>
        (match[1] ?? match[2] ?? match[3] ?? match[4] ?? "").trim(),
      ),
    ).filter((value) => value !== "");
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
    return (this.#numbers ??= matches(this.#textWithoutLinks().replace(DATE_PATTERN, " "), NUMBER_PATTERN, 0).map(
      Number,
    ));
  }

  get arithmetic(): Arithmetic[] {
    return (this.#arithmetic ??= findArithmetic(this.#textWithoutLinks()));
  }

  get dates(): string[] {
    return (this.#dates ??= unique(matches(this.text, DATE_PATTERN, 0)));
  }

  #textWithoutLinks(): string {
    return (this.#withoutLinks ??= this.urls
      .concat(this.emails)
      .reduce((rest, link) => rest.split(link).join(" "), this.text));
  }
}
