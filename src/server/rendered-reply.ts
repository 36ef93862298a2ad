import type { SimulatedReply, SimulatedToolCall } from "./simulate/index.js";
import { splitArguments, splitContent } from "./split-content.js";

/** What every object of one completion shares. */
export interface CompletionMeta {
  readonly id: string;
  readonly created: number;
  /** The dated version the catalogue serves the requested model as. */
  readonly model: string;
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

  /** The `usage` object. */
  usage() {
    const { completionTokens, reasoningTokens } = this.reply;
    return {
      prompt_tokens: this.promptTokens,
      completion_tokens: completionTokens,
      total_tokens: this.promptTokens + completionTokens,
      completion_tokens_details: { reasoning_tokens: reasoningTokens },
    };
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
      this.#usage ??= JSON.stringify(this.usage());
      chunks.push(`${head}],"usage":${this.#usage}}`);
    }
    return { chunks, finishIndex: this.#deltas.finishIndex };
  }

  #renderJsonTail(): string {
    const { reply } = this;
    const hasTools = reply.toolCalls.length > 0;
    const message = {
      role: "assistant",
      // The wire format sends null content beside tool calls when there is no text.
      content: hasTools && reply.content === "" ? null : reply.content,
      refusal: null,
      ...(hasTools ? { tool_calls: reply.toolCalls.map(toolCallOf) } : {}),
    };
    const choices = [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }];
    return `"choices":${JSON.stringify(choices)},"usage":${JSON.stringify(this.usage())}}`;
  }

  #renderDeltas(): { deltas: string[]; finishIndex: number } {
    const choice = (delta: string, finishReason = "null") => `{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finishReason}}`;
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
