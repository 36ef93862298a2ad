import { capitalise, joinWords } from "./filler-text.js";
import { expressionFromNumbers } from "./numbers-expression.js";
import type { PromptFacts } from "./prompt-facts.js";

type SchemaObject = { readonly [keyword: string]: unknown };

/** What one tool call is about when a prompt asks for several ("weather in Paris and Tokyo"). */
export interface CallItem {
  readonly kind: "entity" | "expression" | "path" | "url";
  readonly value: string;
}

/** Field names that say which fact fills them. */
export const FIELD_KINDS = {
  expression: /expr|formula|equation|calculation|math|arithmetic/,
  place: /city|cities|location|place|country|countries|town|region|destination|origin|address|where/,
  person: /^(name|names|person|people|user|who|recipient|contact)$|_name$|name_/,
  path: /path|file|filename|document/,
  url: /url|link|href|uri|website|site|page|endpoint/,
  email: /e_?mail|recipient|^to$/,
  date: /date|day|deadline|when/,
  query: /^(q|query|queries|search|term|terms|keywords?|topic|subject|question|prompt|input|text)$|query|search/,
  content: /content|body|text|data|message|note|summary|description|answer|comment/,
  title: /title|headline|heading/,
  numbers: /^(numbers|values|nums|operands|items|list|data)$/,
  tags: /tags|keywords|topics|labels/,
} as const;

const LANGUAGES = [
  "English",
  "French",
  "Spanish",
  "German",
  "Italian",
  "Portuguese",
  "Japanese",
  "Chinese",
  "Korean",
  "Russian",
  "Arabic",
  "Dutch",
];
const NUMBER_TYPES = new Set(["number", "integer"]);

/** Words of a field name: `cityName` and `city_name` both give "city_name". */
export function fieldName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s]+/g, "_")
    .toLowerCase();
}

/**
 * Suggests field values from the conversation: enum values the prompt names, numbers in the
 * order they appear, places, paths, links, quoted text. Stateful (numbers are handed out in
 * order), so make one per generated value.
 */
export function suggestFromFacts(
  facts: PromptFacts,
  item?: CallItem,
): (name: string, schema: SchemaObject, index?: number) => unknown {
  let nextNumber = 0;
  const lowerText = facts.text.toLowerCase();
  return (rawName, schema, index) => {
    const name = fieldName(rawName);
    const types =
      typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
    if (Array.isArray(schema.enum)) {
      return schema.enum.find(
        (option) => typeof option === "string" && new RegExp(`\\b${escape(option.toLowerCase())}\\b`).test(lowerText),
      );
    }
    if (types.includes("array")) return arrayValue(name, facts);
    if (types.some((type) => NUMBER_TYPES.has(type))) {
      if (index !== undefined) return facts.numbers[index];
      return nextNumber < facts.numbers.length ? facts.numbers[nextNumber++] : undefined;
    }
    if (types.length > 0 && !types.includes("string")) return undefined;
    const at = index ?? 0;
    if (item && matchesItem(name, item)) return item.value;
    if (FIELD_KINDS.expression.test(name))
      return (
        facts.arithmetic[at]?.expression ?? (at === 0 ? expressionFromNumbers(facts.text, facts.numbers) : undefined)
      );
    if (FIELD_KINDS.url.test(name)) return facts.urls[at];
    if (FIELD_KINDS.email.test(name) || schema.format === "email") return facts.emails[at];
    if (FIELD_KINDS.path.test(name)) return facts.paths[at];
    if (FIELD_KINDS.date.test(name)) return facts.dates[at];
    if (FIELD_KINDS.place.test(name)) return facts.places[at] ?? facts.entities[at];
    if (FIELD_KINDS.person.test(name)) return facts.others[at] ?? facts.entities[at];
    if (/lang/.test(name)) return LANGUAGES.find((language) => lowerText.includes(language.toLowerCase()));
    if (FIELD_KINDS.title.test(name))
      return facts.keywords.length > 0 ? facts.keywords.slice(0, 4).map(capitalise).join(" ") : undefined;
    // A generation prompt passes the brief on as it was written.
    if (name === "prompt")
      return facts.quoted[at] ?? (facts.text.trim().length > 0 ? facts.text.trim().slice(0, 400) : undefined);
    if (FIELD_KINDS.query.test(name)) return facts.quoted[at] ?? queryText(facts);
    if (FIELD_KINDS.content.test(name)) {
      return (
        facts.quoted[at] ??
        (facts.keywords.length > 0 ? `Notes on ${joinWords(facts.keywords.slice(0, 3))}.` : undefined)
      );
    }
    return facts.quoted[at];
  };
}

function matchesItem(name: string, item: CallItem): boolean {
  switch (item.kind) {
    case "entity":
      return FIELD_KINDS.place.test(name) || FIELD_KINDS.person.test(name) || FIELD_KINDS.query.test(name);
    case "expression":
      return FIELD_KINDS.expression.test(name) || FIELD_KINDS.query.test(name);
    case "path":
      return FIELD_KINDS.path.test(name);
    case "url":
      return FIELD_KINDS.url.test(name);
  }
}

function arrayValue(name: string, facts: PromptFacts): unknown[] | undefined {
  const pick = <T>(values: readonly T[]) => (values.length > 0 ? [...values] : undefined);
  if (FIELD_KINDS.place.test(name)) return pick(facts.places.length > 0 ? facts.places : facts.entities);
  if (FIELD_KINDS.person.test(name)) return pick(facts.others.length > 0 ? facts.others : facts.entities);
  if (FIELD_KINDS.url.test(name)) return pick(facts.urls);
  if (FIELD_KINDS.path.test(name)) return pick(facts.paths);
  if (FIELD_KINDS.tags.test(name)) return pick(facts.keywords.slice(0, 5));
  if (FIELD_KINDS.numbers.test(name)) return pick(facts.numbers);
  if (FIELD_KINDS.expression.test(name)) return pick(facts.arithmetic.map((entry) => entry.expression));
  return undefined;
}

function queryText(facts: PromptFacts): string | undefined {
  return facts.keywords.length > 0 ? facts.keywords.slice(0, 5).join(" ") : undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
