import type { Dialect, DialectError, GatewayFailure, ReplyParts } from "./dialect.js";
import { replyPieces, wireUsage, type ReplyPiece } from "./reply-pieces.js";

// QuantumNous/new-api: dto/openai_response.go (ChatCompletionsStreamResponse with
// `system_fingerprint`, `usage`, `logprobs` and `finish_reason` always present, null when unset;
// ToolCallResponse.Type `any`, so null on continuation fragments; SetReasoningContent fills both
// `reasoning_content` and `reasoning`; Usage with input/output tokens and detail objects),
// relay/channel/openai/helper.go (HandleFinalResponse: a final usage chunk with `choices: []`),
// dto/error.go and the `new_api_error` type, relay quota errors `insufficient_user_quota` (403).

function usageOf(parts: ReplyParts) {
  return {
    ...wireUsage(parts),
    input_tokens: 0,
    output_tokens: 0,
    prompt_tokens_details: { cached_tokens: 0, text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
    completion_tokens_details: { text_tokens: 0, audio_tokens: 0, reasoning_tokens: parts.usage.reasoningTokens },
  };
}

function deltaOf(piece: ReplyPiece): Record<string, unknown> {
  switch (piece.kind) {
    case "role":
      return { content: "", role: "assistant" };
    case "reasoning":
      return { reasoning_content: piece.text, reasoning: piece.text };
    case "content":
      return { content: piece.text };
    case "tool-start":
      return {
        tool_calls: [
          {
            ...piece.call.extra,
            index: piece.index,
            id: piece.call.id,
            type: "function",
            function: { name: piece.call.name, arguments: "" },
          },
        ],
      };
    case "tool-arguments":
      return { tool_calls: [{ index: piece.index, type: null, function: { arguments: piece.text } }] };
    case "finish":
      return {};
  }
}

function ownError(status: number, message: string, code = ""): DialectError {
  return { status, body: { error: { message, type: "new_api_error", param: "", code } } };
}

function errorOf(failure: GatewayFailure): DialectError {
  if (failure.modelNotAllowed !== undefined)
    return ownError(403, `This token has no access to model ${failure.modelNotAllowed}`);
  switch (failure.code) {
    case "insufficient_quota":
      return ownError(403, "用户额度不足，剩余额度不足以支付本次请求", "insufficient_user_quota");
    case "key_deactivated":
      return ownError(401, "该令牌额度已用尽");
    case "invalid_api_key":
      return ownError(401, "无效的令牌");
    case "upstream_error":
      return ownError(failure.status, failure.message, "bad_response_status_code");
    default:
      return {
        status: failure.status,
        body: {
          error: { message: failure.message, type: "new_api_error", param: failure.param ?? "", code: failure.code },
        },
      };
  }
}

/**
 * new-api. Streams: every chunk carries `system_fingerprint`, `usage`, `logprobs` and
 * `finish_reason` as null; reasoning in both `reasoning_content` and `reasoning`; argument
 * fragments with `"type": null`; usage (with zero `input_tokens`/`output_tokens` and detail
 * objects) in a final chunk with `choices: []`; a reply whose upstream died ends at `[DONE]` all
 * the same. Errors: `new_api_error`, 403 for spent quota and for a model the token may not use.
 */
export const newApiDialect: Dialect = {
  name: "new-api",
  stream(parts, includeUsage) {
    const head = {
      id: parts.id,
      object: "chat.completion.chunk",
      created: parts.created,
      model: parts.model,
      system_fingerprint: null,
    };
    const pieces = replyPieces(parts);
    const frames = pieces.map((piece) => ({
      data: JSON.stringify({
        ...head,
        choices: [
          {
            delta: deltaOf(piece),
            logprobs: null,
            finish_reason: piece.kind === "finish" ? piece.reason : null,
            index: 0,
          },
        ],
        usage: null,
      }),
    }));
    if (includeUsage) frames.push({ data: JSON.stringify({ ...head, choices: [], usage: usageOf(parts) }) });
    // An upstream that dies mid-reply still gets `[DONE]`, with no finish reason and no error
    // (QuantumNous/new-api#7059, described in relay/helper/relay_terminal_guard.go).
    return { frames, finishIndex: pieces.length - 1, end: "done", cutEnd: "done" };
  },
  json(parts) {
    const message: Record<string, unknown> = {
      role: "assistant",
      content: parts.toolCalls.length > 0 && parts.content === "" ? null : parts.content,
    };
    if (parts.reasoning !== "") message.reasoning_content = parts.reasoning;
    if (parts.toolCalls.length > 0) {
      message.tool_calls = parts.toolCalls.map((call) => ({
        ...call.extra,
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    return {
      id: parts.id,
      object: "chat.completion",
      created: parts.created,
      model: parts.model,
      choices: [{ index: 0, message, finish_reason: parts.finishReason }],
      usage: usageOf(parts),
    };
  },
  error: errorOf,
  streamError() {
    return undefined;
  },
};
