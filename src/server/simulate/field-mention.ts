import { STOPWORDS } from "./stopwords.js";
import { fieldName } from "./suggest-values.js";

type SchemaObject = { readonly [keyword: string]: unknown };

/** How a prompt names an optional field: the value written next to it, when one is. */
export interface FieldMention {
  /** A number or flag read beside the mention; undefined for other types (filled as usual). */
  readonly value?: number | boolean;
}

/** Characters either side of a mention in which its value must be written. */
const WINDOW = 30;
const NUMBER = /-?\d+(?:\.\d+)?/g;
const STRING_VALUE = /"[^"\n]+"|'[^'\n]+'|`[^`\n]+`|https?:\/\/\S+|[\w./~-]+\.[a-z][a-z0-9]{0,4}\b/i;

/**
 * Whether the prompt asks for an optional field: one of its enum options, or its name's words (or
 * two of its description's key words) near a value that fits it ("from line 40", "recursive").
 * Real models leave optional arguments out otherwise.
 */
export function findFieldMention(text: string, name: string, schema: SchemaObject): FieldMention | undefined {
  // Naming one of its options ("in fahrenheit") asks for an enum field by itself.
  if (
    Array.isArray(schema.enum) &&
    schema.enum.some((option) => typeof option === "string" && option.length >= 2 && namesWord(text, option))
  )
    return {};
  const nameWords = keyWords(fieldName(name).replace(/_/g, " "));
  const descriptionWords =
    typeof schema.description === "string"
      ? keyWords(schema.description).filter((word) => !nameWords.includes(word))
      : [];
  const types =
    typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
  for (const at of positions(text, nameWords)) {
    const found = valueNear(text, at, types, schema);
    if (found) return found;
  }
  for (const at of positions(text, descriptionWords)) {
    const window = text.slice(Math.max(0, at - WINDOW), at + WINDOW).toLowerCase();
    if (descriptionWords.filter((word) => window.includes(word)).length < 2) continue;
    const found = valueNear(text, at, types, schema);
    if (found) return found;
  }
  return undefined;
}

function namesWord(text: string, word: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}_])${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}_])`, "iu").test(
    text,
  );
}

function keyWords(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z]{3,}/g) ?? [];
  return [
    ...new Set(
      words
        .filter((word) => !STOPWORDS.has(word))
        .map((word) => word.replace(/(ing|ed|es|s)$/, ""))
        .filter((word) => word.length >= 3),
    ),
  ];
}

function positions(text: string, stems: readonly string[]): number[] {
  return stems.flatMap((stem) =>
    [...text.matchAll(new RegExp(`\\b${stem}[a-z]*\\b`, "gi"))].map((match) => match.index),
  );
}

function valueNear(text: string, at: number, types: readonly string[], schema: SchemaObject): FieldMention | undefined {
  const after = text.slice(at, at + WINDOW);
  const before = text.slice(Math.max(0, at - WINDOW), at);
  if (Array.isArray(schema.enum)) {
    const window = `${before}${after}`.toLowerCase();
    return schema.enum.some((option) => typeof option === "string" && window.includes(option.toLowerCase()))
      ? {}
      : undefined;
  }
  if (types.includes("number") || types.includes("integer")) {
    const number = after.match(NUMBER)?.[0] ?? before.match(NUMBER)?.at(-1);
    return number === undefined ? undefined : { value: Number(number) };
  }
  if (types.includes("boolean")) return { value: !/\b(no|not|without|don't|never)\s+\S*$/i.test(before) };
  return STRING_VALUE.test(after) || STRING_VALUE.test(before) ? {} : undefined;
}
