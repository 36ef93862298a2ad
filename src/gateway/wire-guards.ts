import type { ChatChunk, ChatResponse } from "./wire.js";

// zod is the authority on the wire format, but a stream checks every chunk and zod costs several
// microseconds per object (more than parsing its JSON). These guards accept a strict subset of
// what `chatChunkSchema` and `chatResponseSchema` accept, and return the value as it is (the
// schemas transform nothing); whatever they refuse is handed to zod for the verdict and the message.

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function isNullishString(value: unknown): boolean {
  return value == null || typeof value === "string";
}

function isUsage(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (!isCount(value.prompt_tokens) || !isCount(value.completion_tokens) || !isCount(value.total_tokens)) return false;
  const details = value.completion_tokens_details;
  if (details != null && !(isObject(details) && (details.reasoning_tokens === undefined || isCount(details.reasoning_tokens)))) return false;
  return value.prompt_tokens_details == null || isObject(value.prompt_tokens_details);
}

function isToolCallDelta(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.index !== undefined && !isCount(value.index)) return false;
  if (!isOptionalString(value.id) || (value.type !== undefined && value.type !== "function")) return false;
  const fn = value.function;
  return fn === undefined || (isObject(fn) && isOptionalString(fn.name) && isOptionalString(fn.arguments));
}

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || typeof value.id !== "string" || value.type !== "function") return false;
  const fn = value.function;
  return isObject(fn) && typeof fn.name === "string" && typeof fn.arguments === "string";
}

function isChunkChoice(value: unknown): boolean {
  if (!isObject(value) || !Number.isSafeInteger(value.index) || !isNullishString(value.finish_reason)) return false;
  const delta = value.delta;
  if (!isObject(delta) || !isNullishString(delta.role) || !isNullishString(delta.content)) return false;
  const calls = delta.tool_calls;
  return calls == null || (Array.isArray(calls) && calls.every(isToolCallDelta));
}

function isResponseChoice(value: unknown): boolean {
  if (!isObject(value) || !Number.isSafeInteger(value.index)) return false;
  if (!(value.finish_reason === null || typeof value.finish_reason === "string")) return false;
  const message = value.message;
  if (!isObject(message) || message.role !== "assistant") return false;
  if (!(message.content === null || typeof message.content === "string")) return false;
  const calls = message.tool_calls;
  return calls === undefined || (Array.isArray(calls) && calls.every(isToolCall));
}

/** True when `value` is certainly a valid stream chunk; false means "ask chatChunkSchema". */
export function isChatChunk(value: unknown): value is ChatChunk {
  if (!isObject(value) || value.object !== "chat.completion.chunk") return false;
  if (typeof value.id !== "string" || !Number.isSafeInteger(value.created) || typeof value.model !== "string") return false;
  if (!Array.isArray(value.choices) || !value.choices.every(isChunkChoice)) return false;
  return value.usage == null || isUsage(value.usage);
}

/** True when `value` is certainly a valid chat response; false means "ask chatResponseSchema". */
export function isChatResponse(value: unknown): value is ChatResponse {
  if (!isObject(value) || value.object !== "chat.completion") return false;
  if (typeof value.id !== "string" || !Number.isSafeInteger(value.created) || typeof value.model !== "string") return false;
  if (!Array.isArray(value.choices) || !value.choices.every(isResponseChoice)) return false;
  return isUsage(value.usage);
}

/** True when `value` may be an error body (an object with an `error` field); only then is it worth
 * asking errorBodySchema, which costs more to fail than to pass. */
export function mayBeErrorBody(value: unknown): boolean {
  return isObject(value) && value.error !== undefined;
}
