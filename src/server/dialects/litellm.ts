import type { Dialect, DialectError, GatewayFailure, ReplyParts } from "./dialect.js";
import { replyPieces, runningCompletionTokens, type ReplyPiece } from "./reply-pieces.js";

// BerriAI/litellm: the proxy's Delta serializes every field (`function_call`, `tool_calls`,
// `audio`, `refusal`, `provider_specific_fields` as null), continuation tool-call fragments with
// `"id": null` and `"name": null` (issue #3490 shows the chunk shape), usage on intermediate
// chunks (issues #9657, #1371), `reasoning_content` for thinking models; ProxyException.to_dict
// errors `{"message", "type", "param": "None", "code": "<status>"}`, sent as a data event after
// the 200 with no `[DONE]` after it (proxy_server.py async_data_generator; PR #39748), budget
// exhaustion as 400 `budget_exceeded`, a model the key may not use as 401
// `key_model_access_denied`.

function usageOf(parts: ReplyParts, completionTokens: number) {
  const { promptTokens, reasoningTokens } = parts.usage;
  return {
    completion_tokens: completionTokens,
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens_details: {
      accepted_prediction_tokens: null,
      audio_tokens: null,
      reasoning_tokens: reasoningTokens === 0 ? null : reasoningTokens,
      rejected_prediction_tokens: null,
    },
    prompt_tokens_details: null,
  };
}

const EMPTY_DELTA = {
  provider_specific_fields: null,
  content: null,
  role: null,
  function_call: null,
  tool_calls: null,
  audio: null,
  refusal: null,
};

function deltaOf(piece: ReplyPiece): Record<string, unknown> {
  switch (piece.kind) {
    case "role":
      return { ...EMPTY_DELTA, content: "", role: "assistant" };
    case "reasoning":
      return { ...EMPTY_DELTA, reasoning_content: piece.text };
    case "content":
      return { ...EMPTY_DELTA, content: piece.text };
    case "tool-start":
      return {
        ...EMPTY_DELTA,
        tool_calls: [
          {
            ...piece.call.extra,
            id: piece.call.id,
            function: { arguments: "", name: piece.call.name },
            type: "function",
            index: piece.index,
          },
        ],
      };
    case "tool-arguments":
      return {
        ...EMPTY_DELTA,
        tool_calls: [
          { id: null, function: { arguments: piece.text, name: null }, type: "function", index: piece.index },
        ],
      };
    case "finish":
      return { ...EMPTY_DELTA };
  }
}

function proxyError(status: number, message: string, type: string, param = "None"): DialectError {
  return { status, body: { error: { message, type, param, code: String(status) } } };
}

function errorOf(failure: GatewayFailure): DialectError {
  if (failure.modelNotAllowed !== undefined) {
    return proxyError(
      401,
      `Authentication Error, API Key not allowed to access model. Tried to access ${failure.modelNotAllowed}`,
      "key_model_access_denied",
      "model",
    );
  }
  switch (failure.code) {
    case "insufficient_quota":
      return proxyError(400, `Budget has been exceeded! ${failure.message}`, "budget_exceeded");
    case "key_deactivated":
      return proxyError(401, "Authentication Error - Key is blocked: its budget is exhausted.", "auth_error");
    case "invalid_api_key":
      return proxyError(401, "Authentication Error, Invalid proxy server token passed.", "auth_error");
    case "rate_limit_exceeded":
    case "concurrency_limit_exceeded":
      return proxyError(429, `litellm.RateLimitError: ${failure.message}`, "throttling_error");
    default:
      return proxyError(
        failure.status,
        failure.status >= 500 ? `litellm.ServiceUnavailableError: ${failure.message}` : failure.message,
        "None",
        failure.param ?? "None",
      );
  }
}

/**
 * LiteLLM's proxy. Deltas list every field with nulls; continuation tool-call fragments carry
 * `"id": null` and `"name": null`; usage rides on every chunk as a running count (the last one is
 * the reply's); `reasoning_content` passes through. An upstream failure after the 200 is one
 * `data: {"error": ...}` event with a string code, and the stream closes without `[DONE]`.
 */
export const litellmDialect: Dialect = {
  name: "litellm",
  stream(parts) {
    const head = {
      id: parts.id,
      created: parts.created,
      model: parts.model,
      object: "chat.completion.chunk",
      system_fingerprint: null,
    };
    const pieces = replyPieces(parts);
    const frames = pieces.map((piece, at) => ({
      data: JSON.stringify({
        ...head,
        choices: [
          {
            finish_reason: piece.kind === "finish" ? piece.reason : null,
            index: 0,
            delta: deltaOf(piece),
            logprobs: null,
          },
        ],
        provider_specific_fields: null,
        citations: null,
        usage: usageOf(parts, runningCompletionTokens(parts, at, pieces.length)),
      }),
    }));
    return { frames, finishIndex: pieces.length - 1, end: "done" };
  },
  json(parts) {
    const hasTools = parts.toolCalls.length > 0;
    const message = {
      content: hasTools && parts.content === "" ? null : parts.content,
      role: "assistant",
      tool_calls: hasTools
        ? parts.toolCalls.map((call) => ({
            ...call.extra,
            function: { arguments: call.arguments, name: call.name },
            id: call.id,
            type: "function",
          }))
        : null,
      function_call: null,
      ...(parts.reasoning === "" ? {} : { reasoning_content: parts.reasoning }),
      provider_specific_fields: null,
    };
    return {
      id: parts.id,
      created: parts.created,
      model: parts.model,
      object: "chat.completion",
      system_fingerprint: null,
      choices: [{ finish_reason: parts.finishReason, index: 0, message }],
      usage: usageOf(parts, parts.usage.completionTokens),
    };
  },
  error: errorOf,
  streamError(failure: GatewayFailure) {
    const { body } = errorOf(failure);
    return { frames: [{ data: JSON.stringify(body) }], finishIndex: 0, end: "close" };
  },
};
