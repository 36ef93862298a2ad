import type { SseEnd, SseFrame } from "../write-sse.js";

/** A tool call of a reply, as every dialect renders it. */
export interface ReplyToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text. */
  readonly arguments: string;
  /** Fields beyond the wire format's own (a gamma model's `thought_signature`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Token counts of a reply. */
export interface ReplyUsage {
  readonly promptTokens: number;
  /** Visible and reasoning tokens. */
  readonly completionTokens: number;
  readonly reasoningTokens: number;
}

/** Everything a dialect needs to render one reply, independent of any relay's shape. */
export interface ReplyParts {
  /** The completion id (`chatcmpl-...`). */
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  /** The dated model the gateway served. */
  readonly model: string;
  /** The model as the request named it. */
  readonly requestedModel: string;
  /** The visible text ("" when none). */
  readonly content: string;
  /** Reasoning text a relay may pass along ("" when none). */
  readonly reasoning: string;
  readonly toolCalls: readonly ReplyToolCall[];
  readonly finishReason: string;
  readonly usage: ReplyUsage;
}

/** A failure the gateway answers with, before a dialect shapes it. */
export interface GatewayFailure {
  readonly status: number;
  /** The gateway's own code (wire.ts ERROR_CODES). */
  readonly code: string;
  readonly message: string;
  readonly param?: string;
  /** Set when a model exists but the key may not call it (relays answer 403 for this). */
  readonly modelNotAllowed?: string;
  /** The Retry-After of a rate limit, in seconds. */
  readonly retryAfterS?: number;
}

/** A failure as a dialect answers it. */
export interface DialectError {
  readonly status: number;
  readonly body: unknown;
}

/** A streamed reply as a dialect sends it: its frames, where the finish sits, and how it ends. */
export interface DialectStream {
  readonly frames: SseFrame[];
  /** The frame that carries (or stands where the clean dialect puts) the finish reason: a cut
   * before it leaves the reply incomplete. */
  readonly finishIndex: number;
  readonly end: SseEnd;
  /** How this relay ends the stream when its upstream dies mid-reply (a drop fault); absent: the
   * connection is cut. */
  readonly cutEnd?: SseEnd;
}

/** How one relay shapes replies and errors (docs/dialects.md lists the sources). */
export interface Dialect {
  readonly name: string;
  /** The frames of a streamed reply; `includeUsage` is the request's `stream_options.include_usage`. */
  stream(parts: ReplyParts, includeUsage: boolean): DialectStream;
  /** The body of a non-streamed reply. */
  json(parts: ReplyParts): unknown;
  /** Text this relay sends before a non-streamed reply's JSON (keep-alive comments); none when absent. */
  readonly jsonPrefix?: string;
  /** The status and body of a failure answered before any output. */
  error(failure: GatewayFailure): DialectError;
  /** A failure of the upstream model on a stream request, as this relay reports it after its 200
   * (an error event inside the stream); undefined when it answers with the status instead. */
  streamError(failure: GatewayFailure, parts: Pick<ReplyParts, "id" | "created" | "model">): DialectStream | undefined;
}
