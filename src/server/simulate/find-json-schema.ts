import type { JsonSchema } from "./json-schema-check.js";

/** A schema read from a prompt, and the prompt without it. */
export interface FoundSchema {
  readonly schema: JsonSchema;
  /** The text with the schema (or example) cut out, so its words do not fill the fields. */
  readonly rest: string;
}

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const MAX_CANDIDATES = 40;

/**
 * A JSON Schema or example object written in a prompt ("Respond with JSON matching this schema:
 * {...}", or an example of the wanted output), else the keys it lists ("with keys name and age").
 * A schema wins over an example; the last one written wins among equals.
 */
export function findJsonSchema(text: string): FoundSchema | undefined {
  let schema: FoundSchema | undefined;
  let example: FoundSchema | undefined;
  let start = text.indexOf("{");
  for (let candidates = 0; start >= 0 && candidates < MAX_CANDIDATES; candidates++) {
    const end = matchingBrace(text, start);
    if (end < 0) break;
    const parsed = parse(text.slice(start, end + 1));
    const rest = `${text.slice(0, start)} ${text.slice(end + 1)}`;
    if (parsed && looksLikeSchema(parsed)) schema = { schema: parsed, rest };
    else if (parsed) example = { schema: schemaOfExample(parsed), rest };
    start = text.indexOf("{", parsed ? end + 1 : start + 1);
  }
  return schema ?? example ?? schemaOfListedKeys(text);
}

function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === "{") depth++;
    else if (character === "}" && --depth === 0) return index;
  }
  return -1;
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function looksLikeSchema(value: Record<string, unknown>): boolean {
  if ("$schema" in value || "$defs" in value || "definitions" in value) return true;
  if (typeof value.type === "string" && JSON_TYPES.has(value.type)) return true;
  if (Array.isArray(value.type) && value.type.every((type) => typeof type === "string" && JSON_TYPES.has(type)))
    return true;
  const properties = value.properties;
  return (
    properties !== null &&
    typeof properties === "object" &&
    Object.values(properties).every((sub) => sub !== null && typeof sub === "object")
  );
}

/** The schema an example value implies: same keys, all required, same types. */
export function schemaOfExample(example: unknown): JsonSchema {
  if (example === null) return {};
  if (Array.isArray(example))
    return example.length > 0 ? { type: "array", items: schemaOfExample(example[0]) } : { type: "array" };
  if (typeof example === "object") {
    const entries = Object.entries(example as Record<string, unknown>);
    return {
      type: "object",
      properties: Object.fromEntries(entries.map(([key, value]) => [key, schemaOfExample(value)])),
      required: entries.map(([key]) => key),
    };
  }
  if (typeof example === "number") return { type: Number.isInteger(example) ? "integer" : "number" };
  return { type: typeof example };
}

function schemaOfListedKeys(text: string): FoundSchema | undefined {
  const match =
    /\b(?:keys|fields|properties)\s*:?\s*((?:[`"']?[A-Za-z_]\w*[`"']?(?:\s*,\s*(?:and\s+)?|\s+and\s+)?){1,20})/i.exec(
      text,
    );
  const keys = match?.[1]?.match(/[A-Za-z_]\w*/g)?.filter((key) => key.toLowerCase() !== "and") ?? [];
  if (keys.length === 0) return undefined;
  const properties = Object.fromEntries(keys.map((key) => [key, schemaForKey(key)]));
  return { schema: { type: "object", properties, required: keys }, rest: text.replace(match![0], " ") };
}

function schemaForKey(key: string): JsonSchema {
  const name = key.toLowerCase();
  if (/(^|_)(age|count|year|quantity|rank)$/.test(name)) return { type: "integer" };
  if (/price|amount|total|score|rating|number|value|result/.test(name)) return { type: "number" };
  if (/^(is|has|can)_|enabled|active|valid/.test(name)) return { type: "boolean" };
  if (/tags|items|list|keywords|names|steps|ideas/.test(name)) return { type: "array", items: { type: "string" } };
  return { type: "string" };
}
