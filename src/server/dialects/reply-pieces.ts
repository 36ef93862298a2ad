import { splitArguments, splitContent } from "../split-content.js";
import type { ReplyParts, ReplyToolCall } from "./dialect.js";

/** One step of a streamed reply, before a dialect gives it a chunk shape. */
export type ReplyPiece =
  | { readonly kind: "role" }
  | { readonly kind: "reasoning"; readonly text: string }
  | { readonly kind: "content"; readonly text: string }
  | { readonly kind: "tool-start"; readonly index: number; readonly call: ReplyToolCall }
  | { readonly kind: "tool-arguments"; readonly index: number; readonly text: string }
  | { readonly kind: "finish"; readonly reason: string };

/** The steps of a streamed reply in the order models send them: role, reasoning, text, each tool
 * call (its head, then its arguments in fragments), finish. */
export function replyPieces(parts: ReplyParts): ReplyPiece[] {
  const pieces: ReplyPiece[] = [{ kind: "role" }];
  for (const text of splitContent(parts.reasoning)) pieces.push({ kind: "reasoning", text });
  for (const text of splitContent(parts.content)) pieces.push({ kind: "content", text });
  parts.toolCalls.forEach((call, index) => {
    pieces.push({ kind: "tool-start", index, call });
    for (const text of splitArguments(call.arguments)) pieces.push({ kind: "tool-arguments", index, text });
  });
  pieces.push({ kind: "finish", reason: parts.finishReason });
  return pieces;
}

/** A tool call in the wire format's complete form, extra fields kept. */
export function wireToolCall(call: ReplyToolCall): Record<string, unknown> {
  return { ...call.extra, id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
}

/** The usage object of the wire format. */
export function wireUsage(parts: ReplyParts): {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
} {
  const { promptTokens, completionTokens } = parts.usage;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

/** Completion tokens spent by the end of piece `at` of `count`, for relays that report running
 * usage on every chunk: grows with the stream and reaches the reply's count at its last piece. */
export function runningCompletionTokens(parts: ReplyParts, at: number, count: number): number {
  return Math.round((parts.usage.completionTokens * (at + 1)) / count);
}
