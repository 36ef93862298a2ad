import type { ChatRequest } from "../../gateway/wire.js";
import { answerFromToolResults, tableFinding } from "./answer-tool-results.js";
import { formatNumber } from "./arithmetic.js";
import { composeText } from "./compose-text.js";
import type { Conversation } from "./conversation.js";
import { findJsonSchema } from "./find-json-schema.js";
import type { JsonSchema } from "./json-schema-check.js";
import { generateValue } from "./json-schema-values.js";
import { defaultItemCount, mediaWords, phraseFor, PHRASE_KINDS, tagsFor, type About } from "./field-phrases.js";
import type { MediaFacts } from "./media-facts.js";
import { requestedCount, requestedList, requestedSentences } from "./prompt-counts.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";
import { findSubject } from "./subject-phrase.js";
import { findTableColumn } from "./table-column.js";
import { fieldName, FIELD_KINDS, suggestFromFacts } from "./suggest-values.js";

type SchemaObject = { readonly [keyword: string]: unknown };

const SOURCES = /source|reference|citation|files|documents|links/;
const FIGURES = /figure|metric|number|stat/;

/**
 * The reply as JSON text, or undefined when the request does not ask for JSON. `json_schema`
 * follows its schema; `json_object` gives an object (following a schema, example or key list
 * written in the prompt); a prompt that asks for JSON and shows a schema gets JSON even without
 * `response_format`, as real models do.
 */
export function jsonReply(
  request: Pick<ChatRequest, "response_format">,
  conversation: Conversation,
  random: SeededRandom,
  media: readonly MediaFacts[] = [],
): string | undefined {
  const format = request.response_format;
  if (format?.type === "json_schema") {
    const spec = (format as { json_schema?: { schema?: unknown } }).json_schema;
    const schema = spec?.schema;
    const open =
      schema === undefined ||
      schema === true ||
      (typeof schema === "object" && schema !== null && Object.keys(schema).length === 0);
    if (open) return JSON.stringify(defaultObject(conversation, random));
    return JSON.stringify(fill(schema as JsonSchema, conversation.userText, conversation, random, undefined, media));
  }
  const prompt = `${conversation.systemText}\n${conversation.userText}`;
  if (format?.type === "json_object") {
    const found = findJsonSchema(prompt);
    if (!found) return JSON.stringify(defaultObject(conversation, random));
    const value = fill(found.schema, found.rest.trim(), conversation, random, undefined, media);
    // json_object promises an object; a schema for anything else is wrapped rather than broken.
    return JSON.stringify(
      value !== null && typeof value === "object" && !Array.isArray(value) ? value : { result: value },
    );
  }
  // Asking for JSON is checked first: it is rare, and the schema search costs more.
  if (!/\bjson\b/i.test(prompt)) return undefined;
  const found = findJsonSchema(prompt);
  return found
    ? JSON.stringify(fill(found.schema, found.rest.trim(), conversation, random, undefined, media))
    : undefined;
}

/**
 * The arguments of a structured-answer tool: its schema filled as a JSON reply would be, from
 * the user's question and what the tools returned (their numbers, files and links).
 */
export function answerArguments(
  schema: JsonSchema,
  conversation: Conversation,
  random: SeededRandom,
  media: readonly MediaFacts[] = [],
): unknown {
  const results = conversation.toolResults.flatMap((result) => [result.arguments, result.content]);
  const answer =
    conversation.toolResults.length > 0
      ? (tableFinding(conversation) ?? firstSentences(answerFromToolResults(conversation, random)))
      : undefined;
  return fill(schema, [conversation.userText, ...results].join("\n"), conversation, random, answer, media);
}

// Field values come from the prompt with the schema cut out, so the schema's words do not fill fields.
function fill(
  schema: JsonSchema,
  text: string,
  conversation: Conversation,
  random: SeededRandom,
  answer?: string,
  media: readonly MediaFacts[] = [],
): unknown {
  const facts = readFacts(text);
  const fromFacts = suggestFromFacts(facts);
  const about = aboutOf(text, conversation, media);
  const answerText = () => (answer ??= firstSentences(composeText({ ...conversation, userText: text }, random)));
  const list = requestedList(text);
  // A list wrapped as `{ value }` for a tool call, or unnamed, takes its kind from the noun the prompt used ("Three taglines").
  const listName = (name: string) => (name === "" || name === "value" ? (list?.noun ?? name) : name);
  const suggest = (name: string, schema: SchemaObject, index?: number): unknown => {
    const field = fieldName(listName(name));
    const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
    if (
      /result|answer|value|total/.test(field) &&
      (types.includes("number") || types.includes("integer")) &&
      facts.arithmetic[0]
    ) {
      return facts.arithmetic[0].value;
    }
    if (Array.isArray(schema.enum)) return fromFacts(name, schema, index) ?? enumFromMedia(schema.enum, media);
    const phrase = types.length === 0 || types.includes("string") ? phraseFor(field, about, index) : undefined;
    if (phrase !== undefined) return phrase;
    // A list of phrases is filled item by item, so each item can differ.
    if (types.includes("array") && phraseFor(field, about, 0) !== undefined) return undefined;
    if (types.includes("string") && FIELD_KINDS.content.test(field)) return answerText();
    if (types.includes("array") && SOURCES.test(field) && facts.paths.length + facts.urls.length > 0)
      return [...facts.paths, ...facts.urls];
    if (types.includes("array") && FIGURES.test(field)) return tableFigures(conversation);
    const listItem = index !== undefined && types.includes("string") && !PHRASE_KINDS.colours.test(field);
    return fromFacts(name, schema, index) ?? (listItem ? tagsFor(about)[index] : undefined);
  };
  // A JSON reply fills what it can say something about, and now and then a field more.
  const includeOptional = (name: string, schema: SchemaObject, depth: number) =>
    suggest(name, schema) !== undefined || "default" in schema || (depth < 3 && random.chance(0.25));
  const itemCount = (name: string) =>
    name === "" || name === "value"
      ? list?.count
      : (requestedCount(text, fieldName(name)) ?? defaultItemCount(fieldName(name), about));
  return generateValue(schema, { random, suggest, includeOptional, itemCount }, listName(""));
}

function aboutOf(text: string, conversation: Conversation, media: readonly MediaFacts[]): About {
  const subject = findSubject(text) ?? findSubject(conversation.systemText);
  const sentences = requestedSentences(text);
  return {
    ...(subject ? { subject } : {}),
    keywords: readFacts(text).keywords,
    media,
    ...(sentences === undefined ? {} : { sentences }),
  };
}

// The figures a table the tools read gives: the asked-for column's total and its best row.
function tableFigures(conversation: Conversation): Array<{ label: string; value: number }> | undefined {
  // Figures are what was computed: without a calculator result the table's own cells fill them.
  if (!conversation.toolResults.some((result) => /"expression"/.test(result.arguments))) return undefined;
  for (const result of conversation.toolResults) {
    const column = findTableColumn(result.content, conversation.userText);
    if (column)
      return [
        { label: `total ${column.name}`, value: column.total },
        { label: `${column.name} in ${column.best.label} (the highest)`, value: column.best.value },
      ];
  }
  return undefined;
}

function enumFromMedia(options: readonly unknown[], media: readonly MediaFacts[]): unknown {
  const words = media.flatMap(mediaWords).map((word) => word.toLowerCase());
  return options.find((option) => typeof option === "string" && words.includes(option.toLowerCase()));
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
