import type { Dialect, DialectStream, GatewayFailure, ReplyParts } from "./dialect.js";
import { replyPieces, wireToolCall, wireUsage, type ReplyPiece } from "./reply-pieces.js";

const TYPES: Readonly<Record<string, string>> = {
  invalid_api_key: "authentication_error",
  key_deactivated: "authentication_error",
  rate_limit_exceeded: "rate_limit_error",
  concurrency_limit_exceeded: "rate_limit_error",
  insufficient_quota: "insufficient_quota",
  upstream_error: "server_error",
};

/** The wire format's error body, as the local gateway sends it in its own (clean) dialect. */
export function cleanErrorBody(failure: GatewayFailure): {
  error: { message: string; type: string; code: string; param: string | null };
} {
  return {
    error: {
      message: failure.message,
      type: TYPES[failure.code] ?? "invalid_request_error",
      code: failure.code,
      param: failure.param ?? null,
    },
  };
}

function usageOf(parts: ReplyParts) {
  return { ...wireUsage(parts), completion_tokens_details: { reasoning_tokens: parts.usage.reasoningTokens } };
}

function deltaOf(piece: ReplyPiece): Record<string, unknown> {
  switch (piece.kind) {
    case "role":
      return { role: "assistant", content: "" };
    case "reasoning":
      return { reasoning_content: piece.text };
    case "content":
      return { content: piece.text };
    case "tool-start": {
      const { function: fn, ...fields } = wireToolCall(piece.call) as { function: { name: string } };
      return { tool_calls: [{ index: piece.index, ...fields, function: { name: fn.name, arguments: "" } }] };
    }
    case "tool-arguments":
      return { tool_calls: [{ index: piece.index, function: { arguments: piece.text } }] };
    case "finish":
      return {};
  }
}

/**
 * The local gateway's own dialect, OpenAI's shape: a role chunk, deltas, a finish chunk, usage
 * in a last chunk without choices when asked for (and `"usage": null` before it), `[DONE]`.
 * Reasoning, when a reply has any, comes as `reasoning_content` deltas. The server's hot path
 * renders the same bytes itself (rendered-reply.ts); this renders any ReplyParts.
 */
export const cleanDialect: Dialect = {
  name: "clean",
  stream(parts, includeUsage): DialectStream {
    const head = { id: parts.id, object: "chat.completion.chunk", created: parts.created, model: parts.model };
    const pieces = replyPieces(parts);
    const frames = pieces.map((piece) => {
      const choice = {
        index: 0,
        delta: deltaOf(piece),
        logprobs: null,
        finish_reason: piece.kind === "finish" ? piece.reason : null,
      };
      return { data: JSON.stringify({ ...head, choices: [choice], ...(includeUsage ? { usage: null } : {}) }) };
    });
    if (includeUsage) frames.push({ data: JSON.stringify({ ...head, choices: [], usage: usageOf(parts) }) });
    return { frames, finishIndex: pieces.length - 1, end: "done" };
  },
  json(parts) {
    const hasTools = parts.toolCalls.length > 0;
    const message = {
      role: "assistant",
      content: hasTools && parts.content === "" ? null : parts.content,
      refusal: null,
      ...(parts.reasoning === "" ? {} : { reasoning_content: parts.reasoning }),
      ...(hasTools ? { tool_calls: parts.toolCalls.map(wireToolCall) } : {}),
    };
    return {
      id: parts.id,
      object: "chat.completion",
      created: parts.created,
      model: parts.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: parts.finishReason }],
      usage: usageOf(parts),
    };
  },
  error(failure) {
    return { status: failure.status, body: cleanErrorBody(failure) };
  },
  streamError() {
    return undefined;
  },
};
