import type { GatewayIds } from "../errors.js";
import type { Usage } from "../gateway/wire.js";
import type { InvalidReplyToolCall, ReplyToolCall, ToolCallExtras } from "./assemble-tool-calls.js";
import type { ReplyEvent } from "./collect-reply.js";

/** A complete chat reply, from one model of the call's fallback chain. */
export interface ChatReply {
  /** The visible text (for an image model, the Markdown holding the image). */
  readonly content: string;
  /** The model's reasoning, when the gateway sends it (`reasoning_content`); "" otherwise. */
  readonly reasoning: string;
  readonly toolCalls: readonly ReplyToolCall[];
  /** Tool calls without a name or with arguments that are not a JSON object. */
  readonly invalidToolCalls: readonly InvalidReplyToolCall[];
  /** Unknown wire fields of the tool calls, by call id; send them back on the next turn. */
  readonly toolCallExtras: ToolCallExtras;
  readonly finishReason: string | null;
  /** From the final usage chunk (never summed); undefined when a stream had none. */
  readonly usage?: Usage;
  /** The catalogue id that answered, after any fallback. */
  readonly model: string;
  /** The catalogue id the caller asked for (the head of the chain). */
  readonly requestedModel: string;
  /** The model the gateway reported (a dated version behind the alias). */
  readonly servedModel: string;
  /** Models tried before the one that answered. */
  readonly fallbackFrom: readonly string[];
  readonly responseId?: string;
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored answer for the call's idempotency key. */
  readonly replayed: boolean;
  /** Images in an image model's reply (image models bill per image). */
  readonly images: number;
  /** The http(s) links of the images an image model's reply gave as links rather than inline
   * (`![...](https://...)`, a bare link, or a relay's `images` field); the relay keeps them, so
   * fetch them to keep them. Empty for other models. */
  readonly imageLinks: readonly string[];
}

/** One event of a streamed reply: a text, reasoning or tool-call delta, then `finish` with the
 * complete reply (usage, the model that answered, the gateway's ids). */
export type ChatEvent = ReplyEvent | { readonly type: "finish"; readonly reply: ChatReply };

/** A streamed reply, open once it has shown its first output: iterate it once for its events. A
 * failure after that first output is a StreamError whose `partial` holds what had arrived. */
export interface ChatEventStream extends AsyncIterable<ChatEvent> {
  /** The catalogue id answering, after any fallback. */
  readonly model: string;
  readonly requestedModel: string;
  readonly fallbackFrom: readonly string[];
  /** The ids of the response headers. */
  readonly ids: GatewayIds;
  /** The response id, when the first chunks carried one. */
  readonly responseId?: string;
  /** Stops the reply: frees the connection and the concurrency slot; the unfinished reply is not
   * billed. Leaving a `for await` early does the same. */
  cancel(): Promise<void>;
}
