import type { SimulatedReply, SimulatedToolCall } from "./simulate/index.js";
import { splitArguments, splitContent } from "./split-content.js";

/** What every object of one completion shares. */
export interface CompletionMeta {
  readonly id: string;
  readonly created: number;
  /** The dated version the catalogue serves the requested model as. */
  readonly model: string;
}

// A stream chunk's choice is `{"index":0,"delta":<delta>,"logprobs":null,"finish_reason":<reason>}`;
// replies keep it as pieces (these literals around JSON texts) so that a streamed body is one join.
const ROLE_CHOICE = '{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}';
const CONTENT_OPEN = '{"index":0,"delta":{"content":';
const CONTENT_CLOSE = '},"logprobs":null,"finish_reason":null}';
const CHOICE_OPEN = '{"index":0,"delta":';
const CHOICE_CLOSE = ',"logprobs":null,"finish_reason":null}';
const ARGUMENTS_CLOSE = '}}]},"logprobs":null,"finish_reason":null}';
const FINISH_OPEN = '{"index":0,"delta":{},"logprobs":null,"finish_reason":';
// What ends a chunk and starts the next event, without and with `"usage":null`.
const TAIL = "]}\n\ndata: ";
const USAGE_TAIL = '],"usage":null}\n\ndata: ';
const ROLE_TAIL = ROLE_CHOICE + TAIL;
const ROLE_USAGE_TAIL = ROLE_CHOICE + USAGE_TAIL;
// A content delta without characters to escape: its JSON text is itself in quotes.
const PLAIN_CONTENT_OPEN = `${CONTENT_OPEN}"`;
const PLAIN_CONTENT_TAIL = `"${CONTENT_CLOSE}${TAIL}`;
const PLAIN_CONTENT_USAGE_TAIL = `"${CONTENT_CLOSE}${USAGE_TAIL}`;
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The choices of a reply's stream chunks: chunk i is `pieces[starts[i]]` up to `pieces[starts[i + 1]]`. */
interface Deltas {
  readonly pieces: string[];
  readonly starts: number[];
  readonly finishIndex: number;
}

/** A streamed body with its chunks' heads left out: `heads` are the positions to fill. */
interface SseTemplate {
  readonly pieces: string[];
  readonly heads: number[];
}

function chunkHead(meta: CompletionMeta): string {
  return `{"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"choices":[`;
}

function toolCallOf(call: SimulatedToolCall) {
  return {
    ...call.extra,
    id: call.id,
    type: "function" as const,
    function: { name: call.name, arguments: call.arguments },
  };
}

/**
 * A simulated reply and its prompt tokens, rendered in the wire format. Everything but the id and
 * the time is the same for every request that gets this reply, so that part is serialized once
 * and each response only adds its own head.
 */
export class RenderedReply {
  readonly reply: SimulatedReply;
  readonly promptTokens: number;
  #jsonTail: string | undefined;
  #deltas: Deltas | undefined;
  #usage: string | undefined;
  #sse: [SseTemplate | undefined, SseTemplate | undefined] = [undefined, undefined];
  #streamed = false;

  constructor(reply: SimulatedReply, promptTokens: number) {
    this.reply = reply;
    this.promptTokens = promptTokens;
  }

  /** The body of a non-streamed completion, as JSON text. */
  json(meta: CompletionMeta): string {
    this.#jsonTail ??= this.#renderJsonTail();
    return `{"id":${JSON.stringify(meta.id)},"object":"chat.completion","created":${meta.created},"model":${JSON.stringify(meta.model)},${this.#jsonTail}`;
  }

  /**
   * The events of a streamed completion as JSON texts, in order: the role, content deltas of a
   * few tokens, each tool call (index, id and name first, then argument fragments), the finish
   * reason, and the usage when asked for. `finishIndex` is the position of the finish chunk.
   */
  chunks(meta: CompletionMeta, includeUsage: boolean): { chunks: string[]; finishIndex: number } {
    const { pieces, starts, finishIndex } = (this.#deltas ??= this.#renderDeltas());
    const head = chunkHead(meta);
    const end = includeUsage ? ',"usage":null}' : "}";
    const chunks: string[] = [];
    for (let index = 0; index + 1 < starts.length; index++) {
      let chunk = head;
      for (let at = starts[index]!; at < starts[index + 1]!; at++) chunk += pieces[at];
      chunks.push(`${chunk}]${end}`);
    }
    if (includeUsage) {
      chunks.push(`${head}],"usage":${this.#usageJson()}}`);
    }
    return { chunks, finishIndex };
  }

  /**
   * The whole body of a streamed completion: the `data:` events of `chunks()`, then `data: [DONE]`.
   * One join of the reply's pieces with this response's head in its places: building each event,
   * joining them and appending [DONE] made and copied strings the size of the body several times.
   */
  sse(meta: CompletionMeta, includeUsage: boolean): string {
    // Most replies are streamed once: the first body is built directly, and only a reply streamed
    // again (from the reply cache) keeps a template.
    if (!this.#streamed && this.reply.toolCalls.length === 0) {
      this.#streamed = true;
      return this.#renderSseOnce(meta, includeUsage);
    }
    const index = includeUsage ? 1 : 0;
    const { pieces, heads } = (this.#sse[index] ??= this.#renderSse(includeUsage));
    const head = chunkHead(meta);
    // The template is shared by every response with this reply; filling and joining are synchronous.
    for (const at of heads) pieces[at] = head;
    return pieces.join("");
  }

  // Templates around JSON.stringify of the strings alone: stringifying whole objects cost most of
  // the rendering of a one-off reply. The bytes are what JSON.stringify of the objects gives.
  #renderJsonTail(): string {
    const { reply } = this;
    const hasTools = reply.toolCalls.length > 0;
    // The wire format sends null content beside tool calls when there is no text.
    const content = hasTools && reply.content === "" ? "null" : JSON.stringify(reply.content);
    const toolCalls = hasTools ? `,"tool_calls":${JSON.stringify(reply.toolCalls.map(toolCallOf))}` : "";
    const message = `{"role":"assistant","content":${content},"refusal":null${toolCalls}}`;
    return `"choices":[{"index":0,"message":${message},"logprobs":null,"finish_reason":${JSON.stringify(reply.finishReason)}}],"usage":${this.#usageJson()}}`;
  }

  #usageJson(): string {
    const { promptTokens } = this;
    const { completionTokens, reasoningTokens } = this.reply;
    return (this.#usage ??= `{"prompt_tokens":${promptTokens},"completion_tokens":${completionTokens},"total_tokens":${promptTokens + completionTokens},"completion_tokens_details":{"reasoning_tokens":${reasoningTokens}}}`);
  }

  // What `#renderSse` and a fill give, in one join, for a reply without tool calls. Each content
  // delta is three parts (head and opening, text, closing and tail): the join's cost is per part.
  #renderSseOnce(meta: CompletionMeta, includeUsage: boolean): string {
    const { content, finishReason } = this.reply;
    const head = chunkHead(meta);
    const tail = includeUsage ? USAGE_TAIL : TAIL;
    const parts = ["data: ", head, includeUsage ? ROLE_USAGE_TAIL : ROLE_TAIL];
    if (!NEEDS_ESCAPE.test(content)) {
      const open = head + PLAIN_CONTENT_OPEN;
      const close = includeUsage ? PLAIN_CONTENT_USAGE_TAIL : PLAIN_CONTENT_TAIL;
      for (const text of splitContent(content)) parts.push(open, text, close);
    } else {
      const open = head + CONTENT_OPEN;
      const close = CONTENT_CLOSE + tail;
      for (const text of splitContent(content)) parts.push(open, JSON.stringify(text), close);
    }
    parts.push(head, `${FINISH_OPEN}${JSON.stringify(finishReason)}}${tail}`);
    if (includeUsage) parts.push(head, `],"usage":${this.#usageJson()}}\n\ndata: [DONE]\n\n`);
    else parts.push("[DONE]\n\n");
    return parts.join("");
  }

  #renderSse(includeUsage: boolean): SseTemplate {
    const { pieces: choices, starts } = (this.#deltas ??= this.#renderDeltas());
    const tail = includeUsage ? USAGE_TAIL : TAIL;
    const pieces = ["data: "];
    const heads: number[] = [];
    for (let index = 0; index + 1 < starts.length; index++) {
      heads.push(pieces.length);
      pieces.push("");
      for (let at = starts[index]!; at < starts[index + 1]!; at++) pieces.push(choices[at]!);
      pieces.push(tail);
    }
    if (includeUsage) {
      heads.push(pieces.length);
      pieces.push("", `],"usage":${this.#usageJson()}}\n\ndata: [DONE]\n\n`);
    } else {
      pieces.push("[DONE]\n\n");
    }
    return { pieces, heads };
  }

  #renderDeltas(): Deltas {
    const pieces = [ROLE_CHOICE];
    const starts = [0];
    for (const text of splitContent(this.reply.content)) {
      starts.push(pieces.length);
      pieces.push(CONTENT_OPEN, JSON.stringify(text), CONTENT_CLOSE);
    }
    this.reply.toolCalls.forEach((call, index) => {
      const { function: fn, ...fields } = toolCallOf(call);
      starts.push(pieces.length);
      pieces.push(
        CHOICE_OPEN,
        JSON.stringify({ tool_calls: [{ index, ...fields, function: { name: fn.name, arguments: "" } }] }),
        CHOICE_CLOSE,
      );
      for (const fragment of splitArguments(fn.arguments)) {
        starts.push(pieces.length);
        pieces.push(
          `{"index":0,"delta":{"tool_calls":[{"index":${index},"function":{"arguments":`,
          JSON.stringify(fragment),
          ARGUMENTS_CLOSE,
        );
      }
    });
    const finishIndex = starts.length;
    starts.push(pieces.length);
    pieces.push(FINISH_OPEN, JSON.stringify(this.reply.finishReason), "}");
    starts.push(pieces.length);
    return { pieces, starts, finishIndex };
  }
}
