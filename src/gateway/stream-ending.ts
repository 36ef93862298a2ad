import type { ChatChunk } from "./wire.js";

/**
 * How a stream ended, for the rule on streams without a finish reason: one-api's converting
 * adaptors (Gemini, Claude) leave the field out of every chunk until the last, Gemini's never
 * sends one, and they end at `[DONE]`. A stream whose chunks never named a finish reason and that
 * ended cleanly after text or tool calls is complete: it finishes with `tool_calls` when calls were
 * assembled, else `stop`. One whose chunks said `"finish_reason": null` comes from a server that
 * sends a finish reason at the end, so ending without one means the upstream died: one-api's
 * OpenAI stream handler (`relay/adaptor/openai/main.go`) sends `[DONE]` after a read error, and
 * new-api sent its usage chunk and `[DONE]` (QuantumNous/new-api#7059). That, and a stream that
 * carried nothing, stay errors.
 */
export class StreamEnding {
  #finished = false;
  #text = false;
  #toolCalls = false;
  #speaksFinish = false;

  /** True once a chunk carried a finish reason. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Notes what one chunk carried. */
  see(chunk: ChatChunk): void {
    for (const choice of chunk.choices) {
      if (choice.finish_reason === null) this.#speaksFinish = true;
      else if (choice.finish_reason !== undefined) this.#finished = true;
      const delta = choice.delta;
      if (typeof delta.content === "string" && delta.content !== "") this.#text = true;
      if (delta.tool_calls != null && delta.tool_calls.length > 0) this.#toolCalls = true;
    }
  }

  /** True when the stream ended without the finish reason its chunks promised (`null` until then):
   * the reply was cut short, whatever ended the stream. */
  get cutShort(): boolean {
    return !this.#finished && this.#speaksFinish && (this.#text || this.#toolCalls);
  }

  /** The finish chunk a stream that ended without one stands for; undefined when it carried no
   * output, so there is nothing to finish, or was cut short. */
  closingChunk(): ChatChunk | undefined {
    if (this.#finished || this.#speaksFinish || !(this.#text || this.#toolCalls)) return undefined;
    return { choices: [{ index: 0, delta: {}, finish_reason: this.#toolCalls ? "tool_calls" : "stop" }] };
  }
}

// Finish reasons that say the model failed rather than finished: OpenRouter's "error", and
// Gemini's MALFORMED_FUNCTION_CALL (an invalid tool call, no usable output; googleapis/python-genai#2081).
const FAILED_FINISH_REASONS = new Set(["error", "malformed_function_call"]);

/** The finish reason of a choice that reports an upstream failure; undefined when none does. */
export function failedFinishReason(choices: readonly { readonly finish_reason?: string | null }[]): string | undefined {
  for (const choice of choices) {
    const reason = choice.finish_reason;
    if (reason != null && FAILED_FINISH_REASONS.has(reason.toLowerCase())) return reason;
  }
  return undefined;
}

/** The error body a failed finish reason stands for, for errorFromResponse. */
export function failedFinishBody(reason: string): { error: { message: string; type: string } } {
  return { error: { message: `The upstream model failed (finish_reason "${reason}").`, type: "server_error" } };
}
