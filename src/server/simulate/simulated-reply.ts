/** A tool call the simulated model makes; `extra` holds fields beyond the wire format's own. */
export interface SimulatedToolCall {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
  /** E.g. gamma models' `thought_signature`, which a client must send back unchanged. */
  extra?: Record<string, unknown>;
}

/** What a simulated model answers to one chat request. */
export interface SimulatedReply {
  /** The visible text ("" when empty). */
  content: string;
  /** Empty when none. */
  toolCalls: SimulatedToolCall[];
  finishReason: "stop" | "length" | "tool_calls";
  /** Visible tokens plus reasoningTokens (counted with countTextTokens). */
  completionTokens: number;
  /** Hidden reasoning/thinking tokens (0 for non-reasoning models). */
  reasoningTokens: number;
  /** Images generated in `content` (billed per image). */
  images: number;
}

/** What simulateChat may use besides the request. */
export interface SimulateContext {
  /** Same request and seed give the same reply. */
  seed: number;
  /** Fetches an http(s) image for vision; undefined when it cannot. */
  fetchImage?: (url: string) => Promise<Buffer | undefined>;
}
