import type { SimulatedReply, SimulatedToolCall } from "./simulate/index.js";
import { splitArguments, splitContent } from "./split-content.js";

/** What every object of one completion shares. */
export interface CompletionMeta {
  readonly id: string;
  readonly created: number;
  /** The dated version the catalogue serves the requested model as. */
  readonly model: string;
}

// A module function, not a closure per reply: tsx names every closure it keeps (a defineProperty).
function choice(delta: string, finishReason = "null"): string {
  return `{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finishReason}}`;
}

function toolCallOf(call: SimulatedToolCall) {
  return { ...call.extra, id: call.id, type: "function" as const, function: { name: call.name, arguments: call.arguments } };
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
  #deltas: { deltas: string[]; finishIndex: number } | undefined;
  #usage: string | undefined;

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
    this.#deltas ??= this.#renderDeltas();
    const head = `{"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"choices":[`;
    const end = includeUsage ? ',"usage":null}' : "}";
    const chunks = this.#deltas.deltas.map((choice) => `${head}${choice}]${end}`);
    if (includeUsage) {
      chunks.push(`${head}],"usage":${this.#usageJson()}}`);
    }
    return { chunks, finishIndex: this.#deltas.finishIndex };
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

  #renderDeltas(): { deltas: string[]; finishIndex: number } {
    const deltas = [choice('{"role":"assistant","content":""}')];
    for (const text of splitContent(this.reply.content)) deltas.push(choice(`{"content":${JSON.stringify(text)}}`));
    this.reply.toolCalls.forEach((call, index) => {
      const { function: fn, ...fields } = toolCallOf(call);
      deltas.push(choice(JSON.stringify({ tool_calls: [{ index, ...fields, function: { name: fn.name, arguments: "" } }] })));
      for (const fragment of splitArguments(fn.arguments)) {
        deltas.push(choice(`{"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(fragment)}}}]}`));
      }
    });
    const finishIndex = deltas.length;
    deltas.push(choice("{}", JSON.stringify(this.reply.finishReason)));
    return { deltas, finishIndex };
  }
}
