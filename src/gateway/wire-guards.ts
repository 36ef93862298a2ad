import { FINISH_REASONS, type ChatChunk, type ChatRequest, type ChatResponse } from "./wire.js";

// zod is the authority on the wire format, but a stream checks every chunk and zod costs several
// microseconds per object (more than parsing its JSON), and tens for a request with tools. These
// guards accept a strict subset of what `chatRequestSchema`, `chatChunkSchema` and
// `chatResponseSchema` accept: values already in the form the schemas give (no nulls where they
// read absent, no `images` to move, no all-zero usage to drop), returned as they are. Whatever
// they refuse (every relay's quirks) is handed to zod, which reads it leniently or says why not.

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  // JSON.parse makes "__proto__" an own key; zod's output drops it, so zod has the last word.
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Object.hasOwn(value, "__proto__");
}

function isCount(value: unknown): boolean {
  // JSON's `-0` parses to -0, which the schema reads as 0.
  return Number.isSafeInteger(value) && (value as number) >= 0 && !Object.is(value, -0);
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
  if (value.total_tokens === 0 && value.prompt_tokens === 0 && value.completion_tokens === 0) return false;
  // A total that does not add up may leave reasoning out of the completion count, which zod puts back.
  if (value.total_tokens !== (value.prompt_tokens as number) + (value.completion_tokens as number)) return false;
  const details = value.completion_tokens_details;
  if (
    details != null &&
    !(isObject(details) && (details.reasoning_tokens === undefined || isCount(details.reasoning_tokens)))
  )
    return false;
  return value.prompt_tokens_details == null || isObject(value.prompt_tokens_details);
}

function isToolCallDelta(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.index !== undefined && !isCount(value.index)) return false;
  if (!isNullishString(value.id) || (value.type !== undefined && value.type !== "function")) return false;
  const fn = value.function;
  return fn === undefined || (isObject(fn) && isOptionalString(fn.name) && isOptionalString(fn.arguments));
}

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || typeof value.id !== "string" || value.type !== "function") return false;
  const fn = value.function;
  return isObject(fn) && typeof fn.name === "string" && typeof fn.arguments === "string";
}

function isFilledString(value: unknown): boolean {
  return typeof value === "string" && value.length > 0;
}

// Other finish reasons ("", an upstream's own names) are normalized by the schemas.
function isFinishReason(value: unknown): boolean {
  return FINISH_REASONS.has(value as string);
}

function isOptionalBoolean(value: unknown): boolean {
  return value === undefined || typeof value === "boolean";
}

function isNullishPositiveCount(value: unknown): boolean {
  return value == null || (Number.isSafeInteger(value) && (value as number) > 0);
}

function isNullishNumber(value: unknown): boolean {
  return value == null || Number.isFinite(value);
}

function isPlainObject(value: unknown): value is Fields {
  if (!isObject(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

const ROLES = new Set(["system", "user", "assistant", "tool", "developer"]);
const TOOL_CHOICES = new Set(["auto", "none", "required"]);

function isContentPart(part: unknown): boolean {
  if (!isObject(part)) return false;
  switch (part.type) {
    case "text":
      return typeof part.text === "string";
    case "image_url":
      return isObject(part.image_url) && isFilledString(part.image_url.url) && isOptionalString(part.image_url.detail);
    case "input_audio":
      return (
        isObject(part.input_audio) &&
        typeof part.input_audio.data === "string" &&
        typeof part.input_audio.format === "string"
      );
    case "video_url":
      return isObject(part.video_url) && isFilledString(part.video_url.url);
    default:
      return false;
  }
}

function isMessage(value: unknown): boolean {
  if (!isObject(value) || !ROLES.has(value.role as string)) return false;
  const content = value.content;
  if (!(content == null || typeof content === "string" || (Array.isArray(content) && content.every(isContentPart))))
    return false;
  if (!isOptionalString(value.name) || !isOptionalString(value.tool_call_id)) return false;
  const calls = value.tool_calls;
  return calls === undefined || (Array.isArray(calls) && calls.every(isToolCall));
}

function isTool(value: unknown): boolean {
  if (!isObject(value) || value.type !== "function") return false;
  const fn = value.function;
  return (
    isObject(fn) &&
    isFilledString(fn.name) &&
    isOptionalString(fn.description) &&
    (fn.parameters === undefined || isPlainObject(fn.parameters))
  );
}

function isToolChoice(value: unknown): boolean {
  if (value === undefined || (typeof value === "string" && TOOL_CHOICES.has(value))) return true;
  return (
    isObject(value) && value.type === "function" && isObject(value.function) && typeof value.function.name === "string"
  );
}

// No `images` or `refusal` to move into the text, and no `reasoning` without `reasoning_content` (see wire.ts).
function hasPlainReply(message: Fields): boolean {
  if (message.images !== undefined || !isNullishString(message.reasoning_content)) return false;
  if (message.refusal != null && message.refusal !== "") return false;
  return message.reasoning == null || typeof message.reasoning_content === "string";
}

function isChunkChoice(value: unknown): boolean {
  if (
    !isObject(value) ||
    !Number.isSafeInteger(value.index) ||
    !(value.finish_reason == null || isFinishReason(value.finish_reason))
  )
    return false;
  const delta = value.delta;
  if (!isObject(delta) || !isNullishString(delta.role) || !isNullishString(delta.content) || !hasPlainReply(delta))
    return false;
  const calls = delta.tool_calls;
  return calls == null || (Array.isArray(calls) && calls.every(isToolCallDelta));
}

function isResponseChoice(value: unknown): boolean {
  if (!isObject(value) || !Number.isSafeInteger(value.index)) return false;
  if (!(value.finish_reason === null || isFinishReason(value.finish_reason))) return false;
  const message = value.message;
  if (!isObject(message) || message.role !== "assistant" || !hasPlainReply(message)) return false;
  if (!(message.content === null || typeof message.content === "string")) return false;
  const calls = message.tool_calls;
  return calls === undefined || (Array.isArray(calls) && calls.every(isToolCall));
}

/** True when `value` is certainly a valid chat request; false means "ask chatRequestSchema". */
export function isChatRequest(value: unknown): value is ChatRequest {
  if (!isObject(value) || !isFilledString(value.model)) return false;
  const messages = value.messages;
  if (!Array.isArray(messages) || messages.length === 0 || !messages.every(isMessage)) return false;
  if (
    !isOptionalBoolean(value.stream) ||
    !isOptionalBoolean(value.parallel_tool_calls) ||
    !isOptionalString(value.user)
  )
    return false;
  const options = value.stream_options;
  if (!(options == null || (isObject(options) && isOptionalBoolean(options.include_usage)))) return false;
  if (
    !isNullishPositiveCount(value.max_tokens) ||
    !isNullishPositiveCount(value.max_completion_tokens) ||
    !isNullishPositiveCount(value.n)
  )
    return false;
  if (!isNullishNumber(value.temperature) || !isNullishNumber(value.top_p)) return false;
  const stop = value.stop;
  if (
    !(
      stop == null ||
      typeof stop === "string" ||
      (Array.isArray(stop) && stop.every((entry) => typeof entry === "string"))
    )
  )
    return false;
  if (
    !(value.tools === undefined || (Array.isArray(value.tools) && value.tools.every(isTool))) ||
    !isToolChoice(value.tool_choice)
  )
    return false;
  const format = value.response_format;
  return format === undefined || (isObject(format) && typeof format.type === "string");
}

/** True when `value` is certainly a valid stream chunk; false means "ask chatChunkSchema". */
export function isChatChunk(value: unknown): value is ChatChunk {
  if (!isObject(value) || value.object !== "chat.completion.chunk") return false;
  if (!isFilledString(value.id) || !Number.isSafeInteger(value.created) || typeof value.model !== "string")
    return false;
  if (!Array.isArray(value.choices) || !value.choices.every(isChunkChoice)) return false;
  return value.usage == null || isUsage(value.usage);
}

/** True when `value` is certainly a valid chat response; false means "ask chatResponseSchema". */
export function isChatResponse(value: unknown): value is ChatResponse {
  if (!isObject(value) || value.object !== "chat.completion") return false;
  if (!isFilledString(value.id) || !Number.isSafeInteger(value.created) || typeof value.model !== "string")
    return false;
  if (!Array.isArray(value.choices) || !value.choices.every(isResponseChoice)) return false;
  return isUsage(value.usage);
}

/** True when `value` may be an error body (an object with a non-null `error` field, or the flat
 * `{"object": "error", "message": ...}` of vLLM and sglang); only then is it worth asking
 * errorBodySchema, which costs more to fail than to pass. */
export function mayBeErrorBody(value: unknown): boolean {
  return isObject(value) && (value.error != null || value.object === "error");
}

/** True when a 200 body is an error in place of a reply: an error body with no choices, or with
 * an empty list of them (no answer sits beside the error). */
export function isErrorReply(value: unknown): boolean {
  if (!mayBeErrorBody(value)) return false;
  const choices = (value as Fields).choices;
  return !Array.isArray(choices) || choices.length === 0;
}
