import { z } from "zod";

// The chat-completions wire format as the spec describes it. Objects are `loose` where the wire
// format carries fields the spec does not list (they must survive a round trip, e.g. a tool call's
// `thought_signature`), and the server validates requests with the same schemas.

/** A `text` content part. */
export const textPartSchema = z.looseObject({ type: z.literal("text"), text: z.string() });

/** An `image_url` content part: an http(s) link or a `data:image/...;base64,` URI. */
export const imagePartSchema = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.string().optional() }),
});

/** Audio formats the gateway accepts in `input_audio`. */
export const AUDIO_FORMATS = ["mp3", "wav"] as const;

/** An `input_audio` content part (gamma-2.5 models). `format` is checked by the rules, not here,
 * so a wrong format gets the spec's message rather than a schema error. */
export const audioPartSchema = z.looseObject({
  type: z.literal("input_audio"),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});

/** A video content part (gamma-2.5 models); the spec leaves its shape open, this is ours. */
export const videoPartSchema = z.looseObject({
  type: z.literal("video_url"),
  video_url: z.looseObject({ url: z.string().min(1) }),
});

/** One element of an array `content`. */
export const contentPartSchema = z.discriminatedUnion("type", [
  textPartSchema,
  imagePartSchema,
  audioPartSchema,
  videoPartSchema,
]);
export type ContentPart = z.infer<typeof contentPartSchema>;

/** A tool call as an assistant message carries it. */
export const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** A message of the conversation. */
export const messageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool", "developer"]),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});
export type Message = z.infer<typeof messageSchema>;

/** A function definition offered to the model. */
export const toolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type Tool = z.infer<typeof toolSchema>;

/** `tool_choice`: `auto`, `none`, `required`, or a named function. */
export const toolChoiceSchema = z.union([
  z.enum(["auto", "none", "required"]),
  z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

/** The body of `POST {base_url}/chat/completions`. */
export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  n: z.number().int().positive().nullish(),
  user: z.string().optional(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** Token counts of one response. */
export const usageSchema = z.looseObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  completion_tokens_details: z
    .looseObject({ reasoning_tokens: z.number().int().nonnegative().optional() })
    .nullish(),
  prompt_tokens_details: z.looseObject({}).nullish(),
});
export type Usage = z.infer<typeof usageSchema>;

/** The response of a non-streamed chat completion. */
export const chatResponseSchema = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      finish_reason: z.string().nullable(),
      message: z.looseObject({
        role: z.literal("assistant"),
        content: z.string().nullable(),
        tool_calls: z.array(toolCallSchema).optional(),
      }),
    }),
  ),
  usage: usageSchema,
});
export type ChatResponse = z.infer<typeof chatResponseSchema>;

/** A tool-call fragment inside a streamed delta; every field but `index` may be absent. */
export const toolCallDeltaSchema = z.looseObject({
  index: z.number().int().nonnegative().optional(),
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z
    .looseObject({ name: z.string().optional(), arguments: z.string().optional() })
    .optional(),
});
export type ToolCallDelta = z.infer<typeof toolCallDeltaSchema>;

/** One `data:` event of a streamed chat completion. */
export const chatChunkSchema = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      delta: z.looseObject({
        role: z.string().nullish(),
        content: z.string().nullish(),
        tool_calls: z.array(toolCallDeltaSchema).nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema.nullish(),
});
export type ChatChunk = z.infer<typeof chatChunkSchema>;

/** `GET {base_url}/models`. */
export const modelListSchema = z.looseObject({
  object: z.literal("list"),
  data: z.array(z.looseObject({ id: z.string(), object: z.literal("model"), owned_by: z.string() })),
});
export type ModelList = z.infer<typeof modelListSchema>;

/** The error body of every non-2xx response. */
export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    message: z.string(),
    type: z.string().nullish(),
    code: z.string().nullish(),
    param: z.string().nullish(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A music clip; finished once `audio_url` is present. */
export const clipSchema = z.looseObject({
  id: z.string(),
  status: z.string().optional(),
  audio_url: z.string().nullish(),
  title: z.string().nullish(),
  duration: z.number().nullish(),
});
export type Clip = z.infer<typeof clipSchema>;

/** `GET {root_url}/musicapi/api/get_limit`. */
export const quotaReportSchema = z.looseObject({
  credits_left: z.number(),
  svc_key_quota: z.number().nullable(),
});
export type QuotaReport = z.infer<typeof quotaReportSchema>;

/** The three ids the gateway sets on chat and model responses. */
export const ID_HEADERS = {
  requestId: "x-request-id",
  auditId: "x-svc-audit-id",
  backendId: "x-svc-backend-id",
} as const;

/** Error codes the local gateway puts in `error.code`; the client maps them to error classes. */
export const ERROR_CODES = {
  invalidApiKey: "invalid_api_key",
  keyDeactivated: "key_deactivated",
  rateLimited: "rate_limit_exceeded",
  concurrencyLimited: "concurrency_limit_exceeded",
  insufficientQuota: "insufficient_quota",
  invalidParameter: "invalid_parameter",
  contextLengthExceeded: "context_length_exceeded",
  modelNotFound: "model_not_found",
  invalidJson: "invalid_json",
  requestTooLarge: "request_too_large",
  requestTimeout: "request_timeout",
  unsupportedMedia: "unsupported_media",
  upstreamError: "upstream_error",
  notFound: "not_found",
  notOffered: "not_offered",
  idempotencyKeyReused: "idempotency_key_reused",
} as const;

/** Idempotency of billable requests: the request header carrying the key, and the response header
 * marking an answer replayed from the first request with that key (billed once, by that one). */
export const IDEMPOTENCY_HEADERS = {
  key: "idempotency-key",
  replayed: "idempotent-replayed",
} as const;

/** Music paths under `{root_url}/musicapi/api/`. The spec shows generate, get and get_limit; the
 * other four follow the same API family's names and are ours until the real paths are known. */
export const MUSIC_PATHS = {
  generate: "generate",
  get: "get",
  getLimit: "get_limit",
  continuation: "extend_audio",
  stems: "generate_stems",
  lyrics: "generate_lyrics",
  concatenation: "concat",
} as const;
