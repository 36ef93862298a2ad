import { randomBytes } from "node:crypto";
import type { Dialect, DialectError, DialectStream, GatewayFailure, ReplyParts } from "./dialect.js";
import { replyPieces, wireToolCall, wireUsage, type ReplyPiece } from "./reply-pieces.js";

// OpenRouter docs, api-reference/streaming (": OPENROUTER PROCESSING" comments; errors after
// the 200 as a data event with a top-level `error` and `finish_reason: "error"`) and
// api-reference/errors (`{"error": {"code": <number>, "message": ...}}`, the status equal to the
// code; 402 for credits, 403 for a refused model). Chunks carry `provider`,
// `native_finish_reason`, `reasoning` (not `reasoning_content`) and image output in `images`.

const PROCESSING = { comment: "OPENROUTER PROCESSING" };
const MARKDOWN_IMAGE = /!\[[^\]]*\]\(([^)\s]+)\)/g;
const NATIVE_FINISH: Readonly<Record<string, string>> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_calls: "tool_calls",
};

/** The text of a reply without its Markdown images, and the images' URLs. */
function splitImages(content: string): {
  text: string;
  images: { type: "image_url"; image_url: { url: string }; index: number }[];
} {
  const images = [...content.matchAll(MARKDOWN_IMAGE)].map((match, index) => ({
    type: "image_url" as const,
    image_url: { url: match[1]! },
    index,
  }));
  return { text: images.length === 0 ? content : content.replace(MARKDOWN_IMAGE, "").trim(), images };
}

function usageOf(parts: ReplyParts) {
  return {
    ...wireUsage(parts),
    cost: 0,
    is_byok: false,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: parts.usage.reasoningTokens },
  };
}

function deltaOf(piece: ReplyPiece): Record<string, unknown> {
  switch (piece.kind) {
    case "role":
      return { role: "assistant", content: "", reasoning: null };
    case "reasoning":
      return {
        role: "assistant",
        content: "",
        reasoning: piece.text,
        reasoning_details: [{ type: "reasoning.text", text: piece.text, format: "unknown", index: 0 }],
      };
    case "content":
      return { role: "assistant", content: piece.text, reasoning: null };
    case "tool-start":
      return {
        role: "assistant",
        content: null,
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
      return {
        role: "assistant",
        content: null,
        tool_calls: [{ index: piece.index, function: { arguments: piece.text } }],
      };
    case "finish":
      return { role: "assistant", content: "", reasoning: null };
  }
}

function generationId(): string {
  return `gen-${Math.floor(Date.now() / 1000)}-${randomBytes(10).toString("hex")}`;
}

function errorOf(failure: GatewayFailure): DialectError {
  if (failure.modelNotAllowed !== undefined) {
    return {
      status: 403,
      body: { error: { code: 403, message: `This API key may not use the model ${failure.modelNotAllowed}.` } },
    };
  }
  if (failure.code === "model_not_found")
    return { status: 400, body: { error: { code: 400, message: `${failure.message} It is not a valid model ID.` } } };
  if (failure.code === "insufficient_quota") {
    return {
      status: 402,
      body: {
        error: {
          code: 402,
          message: `Insufficient credits. This account never purchased credits or its balance is spent. ${failure.message}`,
        },
      },
    };
  }
  return {
    status: failure.status,
    body: {
      error: {
        code: failure.status,
        message: failure.message,
        ...(failure.code === "upstream_error" ? { metadata: { provider_name: "Simulated" } } : {}),
      },
    },
  };
}

/**
 * OpenRouter. Streams start with `: OPENROUTER PROCESSING` comments, send `role` on every delta,
 * reasoning as `reasoning` with `reasoning_details`, images in `delta.images`, and always end with
 * a usage chunk without choices (with `cost`). An upstream failure after the 200 is a data event
 * with a numeric `error.code` and `finish_reason: "error"`. Errors use the HTTP status as a number.
 */
export const openRouterDialect: Dialect = {
  name: "openrouter",
  stream(parts): DialectStream {
    const id = generationId();
    const head = {
      id,
      provider: "Simulated",
      model: parts.model,
      object: "chat.completion.chunk",
      created: parts.created,
    };
    const { text, images } = splitImages(parts.content);
    const pieces = replyPieces({ ...parts, content: text });
    const frames: DialectStream["frames"] = [PROCESSING, PROCESSING];
    for (const piece of pieces) {
      const delta = deltaOf(piece);
      if (piece.kind === "finish" && images.length > 0)
        frames.push({
          data: JSON.stringify({
            ...head,
            choices: [
              {
                index: 0,
                delta: { role: "assistant", content: "", images },
                finish_reason: null,
                native_finish_reason: null,
                logprobs: null,
              },
            ],
          }),
        });
      const finish = piece.kind === "finish" ? piece.reason : null;
      const choice = {
        index: 0,
        delta,
        finish_reason: finish,
        native_finish_reason: finish === null ? null : (NATIVE_FINISH[finish] ?? finish),
        logprobs: null,
      };
      frames.push({ data: JSON.stringify({ ...head, choices: [choice] }) });
    }
    const finishIndex = frames.length - 1;
    frames.push({ data: JSON.stringify({ ...head, choices: [], usage: usageOf(parts) }) });
    return { frames, finishIndex, end: "done" };
  },
  json(parts) {
    const { text, images } = splitImages(parts.content);
    const hasTools = parts.toolCalls.length > 0;
    const message = {
      role: "assistant",
      content: hasTools && text === "" ? null : text,
      refusal: null,
      reasoning: parts.reasoning === "" ? null : parts.reasoning,
      ...(images.length > 0 ? { images } : {}),
      ...(hasTools ? { tool_calls: parts.toolCalls.map(wireToolCall) } : {}),
    };
    return {
      id: generationId(),
      provider: "Simulated",
      model: parts.model,
      object: "chat.completion",
      created: parts.created,
      choices: [
        {
          logprobs: null,
          finish_reason: parts.finishReason,
          native_finish_reason: NATIVE_FINISH[parts.finishReason] ?? parts.finishReason,
          index: 0,
          message,
        },
      ],
      usage: usageOf(parts),
    };
  },
  // A whole reply, too, comes after keep-alive comments (router-for-me/CLIProxyAPI#417: a 200
  // body starting ": OPENROUTER PROCESSING" broke JSON clients).
  jsonPrefix: ": OPENROUTER PROCESSING\n\n",
  error: errorOf,
  streamError(failure, parts) {
    const error = { code: failure.status, message: failure.message, metadata: { provider_name: "Simulated" } };
    const chunk = {
      id: generationId(),
      object: "chat.completion.chunk",
      created: parts.created,
      model: parts.model,
      provider: "Simulated",
      error,
      choices: [{ index: 0, delta: { content: "" }, finish_reason: "error", native_finish_reason: "error" }],
    };
    return { frames: [PROCESSING, { data: JSON.stringify(chunk) }], finishIndex: 1, end: "done" };
  },
};
