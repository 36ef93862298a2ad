import type { ChatChunk } from "./wire.js";

/**
 * How a stream ended, for the rule on streams without a finish reason: one-api's Gemini adaptor
 * never sends one (it ends at `[DONE]`), and other relays end with a clean close. A stream that
 * ended cleanly after text or tool calls is complete: it finishes with `tool_calls` when calls
 * were assembled, else `stop`. One that carried nothing stays an error (no answer to give).
 */
export class StreamEnding {
  #finished = false;
  #text = false;
  #toolCalls = false;

  /** True once a chunk carried a finish reason. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Notes what one chunk carried. */
  see(chunk: ChatChunk): void {
    for (const choice of chunk.choices) {
      if (choice.finish_reason != null) this.#finished = true;
      const delta = choice.delta;
      if (typeof delta.content === "string" && delta.content !== "") this.#text = true;
      if (delta.tool_calls != null && delta.tool_calls.length > 0) this.#toolCalls = true;
    }
  }

  /** The finish chunk a stream that ended without one stands for; undefined when it carried no
   * output, so there is nothing to finish. */
  closingChunk(): ChatChunk | undefined {
    if (this.#finished || !(this.#text || this.#toolCalls)) return undefined;
    return { choices: [{ index: 0, delta: {}, finish_reason: this.#toolCalls ? "tool_calls" : "stop" }] };
  }
}

/** True when a chunk reports that the upstream failed (OpenRouter's `finish_reason: "error"`). */
export function finishedWithError(chunk: ChatChunk): boolean {
  for (const choice of chunk.choices) if (choice.finish_reason === "error") return true;
  return false;
}
