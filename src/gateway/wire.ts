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

// Replies are read leniently (STYLE 9; the AI SDK's openai-compatible schemas are the model):
// relays send null where others omit a field, drop ids and `object`, put usage anywhere and shape
// errors their own way (docs/dialects.md). Every field may be null or absent, unknown fields are
// kept, and the few shapes consumers rely on are normalized here, once: choices and delta default
// to empty, an empty usage reads as none, images given in an `images` field or as content parts
// join the text as Markdown, and a complete tool call always has string id, name and arguments.

/** A count a relay may send as null, a float or a string: a non-negative integer, or undefined. */
const count = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .transform(Number),
  ])
  .nullish()
  .transform((value) => (value == null ? undefined : Math.max(0, Math.round(value))));

/** Token counts of one response. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens?: number; [key: string]: unknown } | null;
  prompt_tokens_details?: Record<string, unknown> | null;
  [key: string]: unknown;
}

/** Token counts as a relay sends them: null counts read as absent, total defaults to prompt +
 * completion, and reasoning tokens left out of the completion count are put back in. */
export const usageSchema: z.ZodType<Usage> = z
  .looseObject({
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    completion_tokens_details: z.looseObject({ reasoning_tokens: count }).nullish(),
    prompt_tokens_details: z.looseObject({}).nullish(),
  })
  .transform((usage): Usage => {
    const prompt = usage.prompt_tokens ?? 0;
    const details = usage.completion_tokens_details;
    const reasoning = details?.reasoning_tokens ?? 0;
    let completion = usage.completion_tokens ?? 0;
    // Gemini's thought tokens are output, billed as such, and OpenAI counts reasoning inside
    // completion_tokens; relays that map Gemini's usage leave them out and count them only in the
    // total (router-for-me/CLIProxyAPI#5733, mozilla-ai/any-llm#1290). A total that is exactly
    // prompt + completion + reasoning says so; the output is then completion + reasoning.
    if (reasoning > 0 && usage.total_tokens === prompt + completion + reasoning) completion += reasoning;
    return {
      ...usage,
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: usage.total_tokens ?? prompt + completion,
      ...(details == null || details.reasoning_tokens !== undefined
        ? {}
        : { completion_tokens_details: omit(details, "reasoning_tokens") }),
    };
  });

function omit<T extends Record<string, unknown>>(value: T, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}

/** Usage as a reply carries it: undefined when absent or null, and when it has no counts at all
 * (some relays send `{}` or zeros on every chunk, before or after the real one). */
const replyUsage = usageSchema
  .nullish()
  .transform((usage) =>
    usage != null && usage.prompt_tokens === 0 && usage.completion_tokens === 0 && usage.total_tokens === 0
      ? undefined
      : usage,
  );

/** An image a relay returns beside the text (OpenRouter's `images`). */
const replyImageSchema = z.looseObject({
  type: z.string().nullish(),
  image_url: z.union([z.looseObject({ url: z.string() }), z.string()]).nullish(),
  url: z.string().nullish(),
});

function imageURL(image: z.output<typeof replyImageSchema>): string | undefined {
  const nested = image.image_url;
  return (typeof nested === "string" ? nested : nested?.url) ?? image.url ?? undefined;
}

/** Images as the Markdown an image model's text carries them in (spec section 2). */
function imagesAsMarkdown(images: readonly z.output<typeof replyImageSchema>[] | null | undefined): string {
  let text = "";
  for (const image of images ?? []) {
    const url = imageURL(image);
    if (url) text += `![image](${url})`;
  }
  return text;
}

/** `content` a relay may send as an array of parts: text parts joined, image parts as Markdown. */
const replyContent = z
  .union([
    z.string(),
    z.array(z.looseObject({ type: z.string().nullish(), text: z.string().nullish() }).and(replyImageSchema)),
  ])
  .nullish()
  .transform((content) => {
    if (!Array.isArray(content)) return content;
    return content.map((part) => (typeof part.text === "string" ? part.text : imagesAsMarkdown([part]))).join("");
  });

/** A string a relay may send as null or "": undefined then. */
const idString = z
  .string()
  .nullish()
  .transform((value) => (value == null || value === "" ? undefined : value));

/** Tool-call arguments: JSON text, or an object some relays send instead. */
const argumentsText = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .nullish()
  .transform((value) => (value == null ? undefined : typeof value === "string" ? value : JSON.stringify(value)));

/** A complete tool call in a non-streamed reply; id, type and name may be missing or null. */
export const replyToolCallSchema = z
  .looseObject({
    id: z.string().nullish(),
    type: z.string().nullish(),
    function: z.looseObject({ name: z.string().nullish(), arguments: argumentsText }).nullish(),
  })
  .transform(
    (call): ToolCall => ({
      ...call,
      // The assembler makes an id for a call that has none.
      id: call.id ?? "",
      type: "function",
      function: { ...call.function, name: call.function?.name ?? "", arguments: call.function?.arguments ?? "" },
    }),
  );

/** The message of a non-streamed reply. */
export interface ReplyMessage {
  role?: string | null;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCall[];
  [key: string]: unknown;
}

/** The response of a non-streamed chat completion, as read. */
export interface ChatResponse {
  id?: string;
  object?: string | null;
  created?: number | null;
  model?: string;
  choices: { index: number; finish_reason: string | null; message: ReplyMessage; [key: string]: unknown }[];
  usage?: Usage;
  [key: string]: unknown;
}

// What a whole completion and a chunk both carry; relays send each field absent, null or "", and
// some of another type (`created` as a string, sashabaranov/go-openai PR #1003). None of them is
// part of the answer: a value of the wrong type reads as absent instead of failing the reply.
const envelopeFields = {
  id: idString.catch(undefined),
  object: z.string().nullish().catch(undefined),
  created: z.number().nullish().catch(undefined),
  model: z.string().nullish().catch(undefined),
};
/** The finish reasons of the chat format. */
export const FINISH_REASONS = new Set(["stop", "length", "tool_calls", "content_filter", "function_call"]);

// Relays pass their upstream's own names through: Claude's end_turn, max_tokens and tool_use
// (aws-samples/bedrock-access-gateway#11, YumchaLabs/siumai#14), "end" (earendil-works/pi#2107),
// Gemini's upper-case STOP, MAX_TOKENS and SAFETY. Read as the format's names, "length" always says
// the reply was cut off; a name not known here is kept as it came.
const UPSTREAM_FINISH_REASONS = new Map([
  ["end_turn", "stop"],
  ["stop_sequence", "stop"],
  ["end", "stop"],
  ["max_tokens", "length"],
  ["max_output_tokens", "length"],
  ["tool_use", "tool_calls"],
  ["safety", "content_filter"],
  ["recitation", "content_filter"],
  ["prohibited_content", "content_filter"],
  ["blocklist", "content_filter"],
  ["refusal", "content_filter"],
]);

// Some servers send "" for "not finished" on every chunk (sgl-project/sglang#3912, ollama/ollama#4357,
// Sensenova in looplj/axonhub PR #2073): read as null, or the stream would seem finished at once.
const finishReason = z
  .string()
  .nullish()
  .transform((reason) => {
    if (reason == null) return reason;
    // "" on every unfinished chunk (sglang, Sensenova) says nothing, as an absent field does; only an
    // explicit null says the server speaks finish reasons (StreamEnding relies on that).
    if (reason === "") return undefined;
    const lower = reason.toLowerCase();
    return UPSTREAM_FINISH_REASONS.get(lower) ?? (FINISH_REASONS.has(lower) ? lower : reason);
  });
// A choice's index; some relays leave it out for their only choice.
const choiceIndex = z
  .number()
  .int()
  .nullish()
  .transform((index) => index ?? 0);
// The fields a reply message and a streamed delta share (their tool calls differ: whole calls or fragments).
const messageFields = {
  role: z.string().nullish(),
  content: replyContent,
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  refusal: z.string().nullish(),
  images: z.array(replyImageSchema).nullish(),
};

// Some servers send a chunk's choice with `message` (the whole reply's shape) instead of `delta`
// (Amm1rr/WebAI-to-API#55), or the reverse; dropped, its text left an empty reply. A choice
// without the field it should have reads the other one; its thinking parts are read as reasoning.
function readInstead(wanted: "delta" | "message", other: "delta" | "message"): (choice: unknown) => unknown {
  return (choice) => {
    if (typeof choice !== "object" || choice === null) return choice;
    const fields = choice as Record<string, unknown>;
    const stand = fields[other];
    const read =
      fields[wanted] == null && typeof stand === "object" && stand !== null ? { ...fields, [wanted]: stand } : fields;
    const message = read[wanted];
    const withReasoning = thinkingAsReasoning(message);
    return withReasoning === message ? read : { ...read, [wanted]: withReasoning };
  };
}

// Mistral's reasoning models send `content` as a list of parts, the reasoning in `thinking` parts
// (`{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}`, BerriAI/litellm#16272,
// vercel/ai PR #17779). Left in the content they were dropped with the reasoning; they are read as
// the reasoning, the other parts as the text.
function thinkingAsReasoning(message: unknown): unknown {
  if (typeof message !== "object" || message === null) return message;
  const fields = message as Record<string, unknown>;
  const content = fields.content;
  if (!Array.isArray(content) || !content.some(isThinkingPart)) return message;
  let reasoning = typeof fields.reasoning_content === "string" ? fields.reasoning_content : "";
  for (const part of content) if (isThinkingPart(part)) reasoning += thinkingText(part.thinking);
  return { ...fields, content: content.filter((part) => !isThinkingPart(part)), reasoning_content: reasoning };
}

function isThinkingPart(part: unknown): part is { thinking: unknown } {
  return typeof part === "object" && part !== null && (part as { type?: unknown }).type === "thinking";
}

function thinkingText(thinking: unknown): string {
  if (typeof thinking === "string") return thinking;
  if (!Array.isArray(thinking)) return "";
  let text = "";
  for (const piece of thinking) {
    const value = typeof piece === "object" && piece !== null ? (piece as { text?: unknown }).text : undefined;
    if (typeof value === "string") text += value;
  }
  return text;
}

/** The response of a non-streamed chat completion. */
export const chatResponseSchema: z.ZodType<ChatResponse> = z
  .looseObject({
    ...envelopeFields,
    choices: z
      .array(
        z.preprocess(
          readInstead("message", "delta"),
          z.looseObject({
            index: choiceIndex,
            finish_reason: finishReason.transform((reason) => reason ?? null),
            message: z
              .looseObject({
                ...messageFields,
                tool_calls: z
                  .array(replyToolCallSchema)
                  .nullish()
                  .transform((calls) => calls ?? undefined),
              })
              .nullish()
              .transform((message): ReplyMessage => normalizeMessage(message ?? {})),
          }),
        ),
      )
      .nullish()
      .transform((choices) => choices ?? []),
    usage: replyUsage,
  })
  .transform((response) => ({ ...response, model: response.model ?? undefined, usage: response.usage ?? undefined }));

/** A message or delta in one shape: its `images` moved into its text as Markdown, a refusal
 * (OpenAI's `refusal`, sent instead of content) read as its text, and reasoning sent as
 * `reasoning` (OpenRouter) read as `reasoning_content` (new-api and LiteLLM send both). */
function normalizeMessage<
  T extends {
    content?: string | null;
    reasoning_content?: string | null;
    reasoning?: string | null;
    refusal?: string | null;
    images?: readonly z.output<typeof replyImageSchema>[] | null;
  },
>(message: T): T {
  const markdown = imagesAsMarkdown(message.images);
  const reasoning = message.reasoning_content ?? message.reasoning;
  // A refusal is the model's answer in words; dropped, it left an empty reply
  // (langchain-ai/langchain#39747, NousResearch/hermes-agent PR #91181).
  const refusal = message.refusal ? message.refusal : "";
  if (markdown === "" && refusal === "" && reasoning === message.reasoning_content) return message;
  const text = `${message.content ?? ""}${refusal}${markdown}`;
  return {
    ...message,
    ...(text === (message.content ?? "") ? {} : { content: text }),
    ...(markdown === "" ? {} : { images: undefined }),
    ...(reasoning == null ? {} : { reasoning_content: reasoning }),
  };
}

/** A tool-call fragment inside a streamed delta. */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string; arguments?: string; [key: string]: unknown } | null;
  [key: string]: unknown;
}

/** A tool-call fragment as relays send it; every field may be absent or null (Gemini sends no
 * `index`, GLM -1, new-api a null `type`, LiteLLM null `id` and `name` on continuation fragments). */
export const toolCallDeltaSchema: z.ZodType<ToolCallDelta> = z.looseObject({
  // GLM sends `"index": -1` (zai-org/GLM-4.5#17): no index, the call is placed by position.
  index: z
    .number()
    .int()
    .nullish()
    .transform((index) => (index == null || index < 0 ? undefined : index)),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z
    .looseObject({ name: z.string().nullish(), arguments: argumentsText })
    .nullish()
    .transform((fn) => (fn == null ? fn : { ...fn, name: fn.name ?? undefined })),
});

/** The delta of one streamed choice. */
export interface ChatDelta {
  role?: string | null;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCallDelta[] | null;
  [key: string]: unknown;
}

/** One `data:` event of a streamed chat completion, as read. */
export interface ChatChunk {
  id?: string;
  object?: string | null;
  created?: number | null;
  model?: string | null;
  choices: { index: number; delta: ChatDelta; finish_reason?: string | null; [key: string]: unknown }[];
  usage?: Usage | null;
  [key: string]: unknown;
}

/** One `data:` event of a streamed chat completion. Azure opens with a chunk whose id, object
 * and model are "" and whose choices are empty, and sends choices without `delta`; one-api's
 * Gemini chunks have no finish reason; usage may come on any chunk, or on none. */
export const chatChunkSchema: z.ZodType<ChatChunk> = z
  .looseObject({
    ...envelopeFields,
    choices: z
      .array(
        z.preprocess(
          readInstead("delta", "message"),
          z.looseObject({
            index: choiceIndex,
            delta: z
              .looseObject({
                ...messageFields,
                tool_calls: z.array(toolCallDeltaSchema).nullish(),
              })
              .nullish()
              .transform((delta): ChatDelta => normalizeMessage(delta ?? {})),
            finish_reason: finishReason,
          }),
        ),
      )
      .nullish(),
    usage: replyUsage,
  })
  // Anything JSON would pass a schema where every field may be absent: a chunk has at least one.
  .refine((chunk) => chunk.choices != null || chunk.usage != null, { message: "a chat chunk has choices or usage" })
  .transform((chunk) => ({ ...chunk, choices: chunk.choices ?? [] }));

/** `GET {base_url}/models`. */
export const modelListSchema = z.looseObject({
  object: z.literal("list"),
  data: z.array(z.looseObject({ id: z.string(), object: z.literal("model"), owned_by: z.string() })),
});
export type ModelList = z.infer<typeof modelListSchema>;

/** The error body of every non-2xx response. Relays vary: `code` a number (OpenRouter, one-api)
 * or a string of one (Azure, LiteLLM), `param` "None" or "", and some send `error` as a string.
 * vLLM and sglang send it flat (`{"object": "error", "message", "type", "code"}`, their
 * `ErrorResponse` in `entrypoints/openai/protocol.py`), read as if under `error`, and FastAPI's
 * `{"detail": "..."}` as its message. Gemini's OpenAI-compatible layer sends Google's error shape
 * in a list (`[{"error": {"code": 429, "message", "status": "RESOURCE_EXHAUSTED", "details"}}]`,
 * Simpleyyt/ai-manus#101): the first entry is read, its `status` as the type, and the `reason` of
 * its details (`API_KEY_INVALID`) kept. */
export const errorBodySchema = z.preprocess(
  (value) => {
    const body = Array.isArray(value) && value.length > 0 ? value[0] : value;
    return isFlatError(body) ? { error: body } : isDetailError(body) ? { error: { message: body.detail } } : body;
  },
  z.looseObject({
    error: z.union([
      z
        .looseObject({
          message: z
            .string()
            .nullish()
            .transform((message) => message ?? ""),
          type: z.string().nullish(),
          code: z
            .union([z.string(), z.number()])
            .nullish()
            .transform((code) => (code == null ? code : String(code))),
          param: z
            .unknown()
            .optional()
            .transform((param) => (typeof param === "string" ? param : undefined)),
          status: z.unknown().optional(),
          details: z.unknown().optional(),
        })
        .transform(({ status, details, ...error }) => ({
          ...error,
          type: error.type ?? (typeof status === "string" && GOOGLE_STATUS.test(status) ? status : undefined),
          reason: reasonOf(details),
        })),
      z.string().transform((message) => ({
        message,
        type: undefined,
        code: undefined,
        param: undefined,
        reason: undefined,
      })),
    ]),
  }),
);

// Google's canonical error names (RESOURCE_EXHAUSTED, UNAUTHENTICATED, ...), not an HTTP reason phrase.
const GOOGLE_STATUS = /^[A-Z][A-Z_]+$/;

/** The `reason` of the first of Google's `details` entries that has one (`API_KEY_INVALID`). */
function reasonOf(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const reason = typeof detail === "object" && detail !== null ? (detail as { reason?: unknown }).reason : undefined;
    if (typeof reason === "string" && reason !== "") return reason;
  }
  return undefined;
}
export type ErrorBody = z.infer<typeof errorBodySchema>;

// FastAPI's own error body, which OpenAI-compatible servers built on it send for their HTTP errors
// (raullenchai/Rapid-MLX PR #491: authentication, validation and rate-limit errors as `{"detail": "..."}`).
function isDetailError(value: unknown): value is { detail: string } {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return fields.error == null && typeof fields.detail === "string";
}

function isFlatError(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return fields.object === "error" && fields.error == null && typeof fields.message === "string";
}

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
