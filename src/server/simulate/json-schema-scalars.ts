import { checkValue } from "./json-schema-check.js";
import { sampleRegex } from "./regex-sample.js";
import type { SeededRandom } from "./seeded-random.js";

type SchemaObject = { readonly [keyword: string]: unknown };

/** Longest string generated for a field, whatever its `minLength`. */
export const MAX_STRING_LENGTH = 1000;

// A plausible word for a field, by its name, when the conversation offers nothing better.
const VOCABULARY: ReadonlyArray<[RegExp, string]> = [
  [/city|town|location|place|destination|origin/, "Paris"],
  [/country|nation/, "France"],
  [/currency/, "EUR"],
  [/lang/, "English"],
  [/colou?r/, "blue"],
  [/unit/, "celsius"],
  [/path|file/, "notes.txt"],
  [/dir|folder/, "docs"],
  [/url|link|href|uri|website/, "https://example.com/"],
  [/email|mail/, "ada@example.com"],
  [/phone/, "+33 1 23 45 67 89"],
  [/first.?name|given/, "Ada"],
  [/last.?name|surname|family/, "Lovelace"],
  [/name|author|user|person|owner/, "Ada Lovelace"],
  [/title|headline|subject/, "A Short Title"],
  [/date|day|deadline/, "2026-07-15"],
  [/time/, "09:30"],
  [/id$|identifier|key|code/, "item-1"],
  [/query|search|term|keyword|topic/, "example"],
  [/desc|summary|text|body|content|message|note|comment|answer|reason|explanation/, "A short description."],
  [/status|state/, "active"],
  [/type|kind|category/, "general"],
];

/** A value for a `format`, as the format's RFC writes it. */
export function formatValue(format: string, random: SeededRandom): string | undefined {
  const hex = (length: number) => Array.from({ length }, () => random.int(0, 15).toString(16)).join("");
  switch (format) {
    case "date":
      return "2026-07-15";
    case "date-time":
      return "2026-07-15T09:30:00Z";
    case "time":
      return "09:30:00Z";
    case "email":
    case "idn-email":
      return "ada@example.com";
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
      return "https://example.com/";
    case "uuid":
      return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
    case "ipv4":
      return "192.0.2.1";
    case "ipv6":
      return "2001:db8::1";
    case "hostname":
    case "idn-hostname":
      return "example.com";
    default:
      return undefined;
  }
}

/** A string valid against the schema's string keywords, shaped by the field's name. */
export function generateString(schema: SchemaObject, name: string, random: SeededRandom): string {
  const candidates: string[] = [];
  if (typeof schema.format === "string") {
    const formatted = formatValue(schema.format, random);
    if (formatted !== undefined) candidates.push(formatted);
  }
  if (typeof schema.pattern === "string") {
    for (let attempt = 0; attempt < 6; attempt++) {
      const sampled = sampleRegex(schema.pattern, random);
      if (sampled !== undefined) candidates.push(sampled);
    }
  }
  const lower = name.toLowerCase();
  candidates.push(VOCABULARY.find(([pattern]) => pattern.test(lower))?.[1] ?? "example");
  for (const candidate of candidates) {
    const fitted = fitLength(candidate, schema);
    if (checkValue(schema, fitted)) return fitted;
  }
  return fitLength(candidates[0]!, schema);
}

function fitLength(text: string, schema: SchemaObject): string {
  let characters = [...text];
  // A schema asking for megabytes of text gets a bounded string rather than exhausting memory.
  const min = typeof schema.minLength === "number" ? Math.min(schema.minLength, MAX_STRING_LENGTH) : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  // Padding in words: a long run of one letter costs the BPE tokenizer quadratic time.
  if (characters.length < min)
    characters = characters.concat(
      [..." example".repeat(Math.ceil((min - characters.length) / 8))].slice(0, min - characters.length),
    );
  if (characters.length > max) characters = characters.slice(0, max);
  return characters.join("");
}

/** A number valid against the schema's numeric keywords: small and round where the bounds allow. */
export function generateNumber(schema: SchemaObject, integer: boolean, random: SeededRandom): number {
  const num = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  let low = num("minimum");
  let high = num("maximum");
  let lowOpen = schema.exclusiveMinimum === true;
  let highOpen = schema.exclusiveMaximum === true;
  const exclusiveMinimum = num("exclusiveMinimum");
  const exclusiveMaximum = num("exclusiveMaximum");
  if (exclusiveMinimum !== undefined && (low === undefined || exclusiveMinimum >= low))
    [low, lowOpen] = [exclusiveMinimum, true];
  if (exclusiveMaximum !== undefined && (high === undefined || exclusiveMaximum <= high))
    [high, highOpen] = [exclusiveMaximum, true];
  if (low === undefined && high === undefined) [low, high] = [1, 100];
  else if (low === undefined) low = high! - 100;
  else if (high === undefined) high = low + 100;
  const inside = (value: number) =>
    (lowOpen ? value > low! : value >= low!) &&
    (highOpen ? value < high! : value <= high!) &&
    (!integer || Number.isInteger(value));
  const step = num("multipleOf");
  if (step !== undefined && step > 0) {
    const first = Math.ceil(low! / step);
    const last = Math.floor(high! / step);
    const span = Math.min(last - first, 1000);
    const start = first + random.int(0, Math.max(0, Math.min(span, 10)));
    for (let offset = 0; offset <= span; offset++) {
      const k = first + ((start - first + offset) % (span + 1));
      const value = Number((k * step).toPrecision(12));
      if (inside(value)) return value;
    }
  }
  const from = Math.ceil(lowOpen ? Math.floor(low!) + 1 : low!);
  const to = Math.floor(highOpen ? Math.ceil(high!) - 1 : high!);
  if (from <= to) {
    const value = random.int(from, Math.min(to, from + 99));
    if (inside(value)) return value;
  }
  return integer ? from : (low! + high!) / 2;
}
