import { randomUUID } from "node:crypto";
import type { Dialect, DialectError, GatewayFailure, ReplyParts } from "./dialect.js";
import { replyPieces, wireUsage } from "./reply-pieces.js";

// songquanpeng/one-api, relay/adaptor/gemini/main.go (streamResponseGeminiChat2OpenAI,
// responseGeminiChat2OpenAI, getToolCalls), relay/model/message.go and tool.go (omitempty
// everywhere), middleware/auth.go and utils.go (abortWithMessage), relay/controller/helper.go
// (preConsumeQuota), model/token.go (ValidateUserToken).

function chunkId(): string {
  return `chatcmpl-${randomUUID()}`;
}

/** one-api's own errors (abortWithMessage): a message and type `one_api_error`, no code. */
function ownError(status: number, message: string): DialectError {
  return { status, body: { error: { message, type: "one_api_error" } } };
}

function errorOf(failure: GatewayFailure): DialectError {
  if (failure.modelNotAllowed !== undefined) return ownError(403, `该令牌无权使用模型：${failure.modelNotAllowed}`);
  switch (failure.code) {
    case "insufficient_quota":
      // preConsumeQuota: the user's quota cannot cover the request's estimate.
      return {
        status: 403,
        body: {
          error: {
            message: "user quota is not enough",
            type: "one_api_error",
            param: "",
            code: "insufficient_user_quota",
          },
        },
      };
    case "key_deactivated":
      return ownError(401, "该令牌额度已用尽");
    case "invalid_api_key":
      return ownError(401, "无效的令牌");
    case "upstream_error":
      // The Gemini adaptor's own failures carry a numeric code.
      return {
        status: failure.status,
        body: { error: { message: failure.message, type: "server_error", param: "", code: failure.status } },
      };
    default:
      return {
        status: failure.status,
        body: {
          error: { message: failure.message, type: "one_api_error", param: failure.param ?? "", code: failure.code },
        },
      };
  }
}

/**
 * one-api relaying a Gemini model. Streams: every chunk has a fresh id, `model: "gemini"`, only
 * `delta.content` (no role), no `finish_reason` and no usage ever, then `[DONE]`; a tool call
 * comes whole, without `index`, its arguments "null" when it has none. Replies: the requested model name, a tool-call message without a
 * `content` key, `finish_reason` "stop" even for tool calls, usage without details.
 */
// Gemini leaves `args` out of a call without arguments, and getToolCalls marshals the nil to "null".
function geminiArguments(text: string): string {
  return text.trim() === "{}" ? "null" : text;
}

export const oneApiGeminiDialect: Dialect = {
  name: "one-api-gemini",
  stream(parts) {
    const frames = [];
    for (const piece of replyPieces(parts)) {
      let delta: Record<string, unknown>;
      if (piece.kind === "content") delta = { content: piece.text };
      else if (piece.kind === "tool-start") {
        const { id, name } = piece.call;
        const args = geminiArguments(piece.call.arguments);
        delta = { tool_calls: [{ ...piece.call.extra, id, type: "function", function: { name, arguments: args } }] };
      } else continue;
      frames.push({
        data: JSON.stringify({
          id: chunkId(),
          object: "chat.completion.chunk",
          created: parts.created,
          model: "gemini",
          choices: [{ index: 0, delta }],
        }),
      });
    }
    return { frames, finishIndex: frames.length, end: "done" };
  },
  json(parts: ReplyParts) {
    const message: Record<string, unknown> = { role: "assistant" };
    if (parts.toolCalls.length > 0) {
      message.tool_calls = parts.toolCalls.map((call) => ({
        ...call.extra,
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: geminiArguments(call.arguments) },
      }));
    } else message.content = parts.content;
    return {
      id: chunkId(),
      model: parts.requestedModel,
      object: "chat.completion",
      created: parts.created,
      choices: [{ index: 0, message, finish_reason: "stop" }],
      usage: wireUsage(parts),
    };
  },
  error: errorOf,
  streamError() {
    return undefined;
  },
};
