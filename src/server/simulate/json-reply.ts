import type { ChatRequest } from "../../gateway/wire.js";
import { answerFromToolResults } from "./answer-tool-results.js";
import { formatNumber } from "./arithmetic.js";
import { composeText } from "./compose-text.js";
import type { Conversation } from "./conversation.js";
import { findJsonSchema } from "./find-json-schema.js";
import type { JsonSchema } from "./json-schema-check.js";
import { generateValue } from "./json-schema-values.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";
import { fieldName, FIELD_KINDS, suggestFromFacts } from "./suggest-values.js";

type SchemaObject = { readonly [keyword: string]: unknown };

const SOURCES = /source|reference|citation|files|documents|links/;

/**
 * The reply as JSON text, or undefined when the request does not ask for JSON. `json_schema`
 * follows its schema; `json_object` gives an object (following a schema, example or key list
 * written in the prompt); a prompt that asks for JSON and shows a schema gets JSON even without
 * `response_format`, as real models do.
 */
export function jsonReply(request: Pick<ChatRequest, "response_format">, conversation: Conversation, random: SeededRandom): string | undefined {
  const format = request.response_format;
  if (format?.type === "json_schema") {
    const spec = (format as { json_schema?: { schema?: unknown } }).json_schema;
    const schema = spec?.schema;
    const open = schema === undefined || schema === true || (typeof schema === "object" && schema !== null && Object.keys(schema).length === 0);
    if (open) return JSON.stringify(defaultObject(conversation, random));
    return JSON.stringify(fill(schema as JsonSchema, conversation.userText, conversation, random));
  }
  const prompt = `${conversation.systemText}\n${conversation.userText}`;
  if (format?.type === "json_object") {
    const found = findJsonSchema(prompt);
    if (!found) return JSON.stringify(defaultObject(conversation, random));
    const value = fill(found.schema, found.rest.trim(), conversation, random);
    // json_object promises an object; a schema for anything else is wrapped rather than broken.
    return JSON.stringify(value !== null && typeof value === "object" && !Array.isArray(value) ? value : { result: value });
  }
  // Asking for JSON is checked first: it is rare, and the schema search costs more.
  if (!/\bjson\b/i.test(prompt)) return undefined;
  const found = findJsonSchema(prompt);
  return found ? JSON.stringify(fill(found.schema, found.rest.trim(), conversation, random)) : undefined;
}

/**
 * The arguments of a structured-answer tool: its schema filled as a JSON reply would be, from
 * the user's question and what the tools returned (their numbers, files and links).
 */
export function answerArguments(schema: JsonSchema, conversation: Conversation, random: SeededRandom): unknown {
  const results = conversation.toolResults.flatMap((result) => [result.arguments, result.content]);
  const answer = conversation.toolResults.length > 0 ? firstSentences(answerFromToolResults(conversation, random)) : undefined;
  return fill(schema, [conversation.userText, ...results].join("\n"), conversation, random, answer);
}

// Field values come from the prompt with the schema cut out, so the schema's words do not fill fields.
function fill(schema: JsonSchema, text: string, conversation: Conversation, random: SeededRandom, answer?: string): unknown {
  const facts = readFacts(text);
  const fromFacts = suggestFromFacts(facts);
  const answerText = () => (answer ??= firstSentences(composeText({ ...conversation, userText: text }, random)));
  const suggest = (name: string, schema: SchemaObject, index?: number): unknown => {
    const field = fieldName(name);
    const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
    if (/result|answer|value|total/.test(field) && (types.includes("number") || types.includes("integer")) && facts.arithmetic[0]) {
      return facts.arithmetic[0].value;
    }
    if (types.includes("string") && FIELD_KINDS.content.test(field) && !Array.isArray(schema.enum)) return answerText();
    if (types.includes("array") && SOURCES.test(field) && facts.paths.length + facts.urls.length > 0) return [...facts.paths, ...facts.urls];
    return fromFacts(name, schema, index);
  };
  // A JSON reply fills what it can say something about, and now and then a field more.
  const includeOptional = (name: string, schema: SchemaObject, depth: number) =>
    suggest(name, schema) !== undefined || "default" in schema || (depth < 3 && random.chance(0.25));
  return generateValue(schema, { random, suggest, includeOptional });
}

function defaultObject(conversation: Conversation, random: SeededRandom): Record<string, unknown> {
  const facts = readFacts(conversation.userText);
  const answer = composeText(conversation, random);
  const first = facts.arithmetic[0];
  return {
    answer,
    ...(first ? { result: Number(formatNumber(first.value)) } : {}),
    keywords: facts.keywords.slice(0, 5),
  };
}

function firstSentences(text: string): string {
  const sentences = text.split(/(?<=[.!?])\s+/);
  return sentences.slice(0, 2).join(" ");
}
