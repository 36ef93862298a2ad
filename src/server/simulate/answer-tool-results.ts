import type { Conversation, ToolResult } from "./conversation.js";
import { formatNumber } from "./arithmetic.js";
import { joinWords } from "./filler-text.js";
import { findTableColumn } from "./table-column.js";
import { readFacts } from "./prompt-facts.js";
import type { SeededRandom } from "./seeded-random.js";

const MAX_QUOTE_CHARS = 300;
const MAX_FIELDS = 8;

/** The final answer after tool calls: every result quoted with the call it answers. */
export function answerFromToolResults(conversation: Conversation, random: SeededRandom): string {
  const results = conversation.toolResults;
  const topic = readFacts(conversation.userText).keywords.slice(0, 3);
  const choice = pickFromList(conversation.userText) ?? tableFinding(conversation);
  const closing =
    choice ??
    (topic.length > 0
      ? random.pick([
          `That answers your question about ${joinWords(topic)}.`,
          `That covers ${joinWords(topic)}.`,
          `I hope that helps with ${joinWords(topic)}.`,
        ])
      : "");
  if (results.length === 1) return [describeResult(results[0]!, true), closing].filter(Boolean).join(" ");
  const lines = results.map((result) => `- ${describeResult(result, false)}`);
  return [random.pick(["Here is what I found:", "Here are the results:", "The tools returned:"]), ...lines, closing]
    .filter(Boolean)
    .join("\n");
}

/** What a table the tools read says about the column the user asked after: its total and its best row. */
// What a table the tools read says about the column the user asked after: its total and its best row.
export function tableFinding(conversation: Conversation): string | undefined {
  for (const result of conversation.toolResults) {
    const column = findTableColumn(result.content, conversation.userText);
    if (column)
      return `The ${column.name} add up to ${formatNumber(column.total)}; the highest is ${column.best.label} with ${formatNumber(column.best.value)}.`;
  }
  return undefined;
}

// "Pick the strongest of these taglines: [...]": the shortest option, as the one that says most in fewest words.
function pickFromList(text: string): string | undefined {
  if (!/\b(pick|choose|select)\b[^.]*\b(strongest|best|favourite|favorite|one)\b/i.test(text)) return undefined;
  const options = readFacts(text).quoted.filter((option) => /\s/.test(option));
  if (options.length < 2) return undefined;
  const best = options.reduce((shortest, option) => (option.length < shortest.length ? option : shortest));
  return `Of the ${options.length} options I would pick "${best}": it is the shortest and still names what it sells.`;
}

function describeResult(result: ToolResult, sentence: boolean): string {
  const args = parseObject(result.arguments);
  const value = readValue(result.content);
  if (/^\s*(error|exception|failed)\b/i.test(result.content) || (value.object && "error" in value.object)) {
    return `${result.name} reported an error: ${value.text}${sentence ? ". I could not complete that step." : ""}`;
  }
  const expression = typeof args?.expression === "string" ? args.expression : undefined;
  if (expression && value.scalar) return `${expression} = ${value.text}${sentence ? "." : ""}`;
  const about = Object.values(args ?? {})
    .filter((item): item is string | number => typeof item === "string" || typeof item === "number")
    .slice(0, 3)
    .join(", ");
  const subject = about ? `${result.name} (${about})` : result.name;
  return sentence
    ? `According to ${subject}: ${value.text}${/[.!?]$/.test(value.text) ? "" : "."}`
    : `${subject}: ${value.text}`;
}

function readValue(content: string): { text: string; scalar: boolean; object?: Record<string, unknown> } {
  const trimmed = content.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return { text: quote(trimmed), scalar: !/\s/.test(trimmed) };
  }
  if (parsed === null || typeof parsed !== "object") return { text: String(parsed), scalar: true };
  if (Array.isArray(parsed))
    return {
      text: quote(
        parsed
          .slice(0, 5)
          .map((item) => (typeof item === "object" ? JSON.stringify(item) : String(item)))
          .join(", "),
      ),
      scalar: false,
    };
  const object = parsed as Record<string, unknown>;
  const fields = flatten(object)
    .slice(0, MAX_FIELDS)
    .map(([key, item]) => `${key} ${item}`);
  return { text: quote(fields.join(", ")), scalar: false, object };
}

function flatten(object: Record<string, unknown>, prefix = ""): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(object)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object" && !Array.isArray(value) && prefix === "") {
      fields.push(...flatten(value as Record<string, unknown>, name));
    } else {
      fields.push([name, typeof value === "object" ? JSON.stringify(value) : String(value)]);
    }
  }
  return fields;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  const single = text.replace(/\s+/g, " ");
  return single.length <= MAX_QUOTE_CHARS ? single : `${single.slice(0, MAX_QUOTE_CHARS).replace(/\s\S*$/, "")}...`;
}
