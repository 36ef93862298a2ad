import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  type MessageContent,
  type UsageMetadata,
} from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall } from "@langchain/core/messages/tool";
import { getModel } from "../catalog/models.js";
import type { ChatReply } from "../chat/chat-reply.js";
import type { ReplyEvent } from "../chat/collect-reply.js";
import { decodeImageReply, imagesFromReply, type MessageImage, toImage } from "../chat/decode-image-reply.js";
import type { Usage } from "../gateway/wire.js";
import { TOOL_CALL_EXTRAS_KEY } from "./convert-messages.js";
import { MODEL_PROVIDER } from "./reasoning-blocks.js";

/** A complete reply as the AIMessage `invoke` returns. */
export function toAIMessage(reply: ChatReply): AIMessage {
  return new AIMessage({
    content: contentOf(reply),
    ...(reply.responseId === undefined ? {} : { id: reply.responseId }),
    tool_calls: reply.toolCalls.map(toToolCall),
    invalid_tool_calls: reply.invalidToolCalls.map(toInvalidToolCall),
    additional_kwargs:
      reply.reasoning === "" ? extrasOf(reply) : { ...extrasOf(reply), reasoning_content: reply.reasoning },
    response_metadata: replyMetadata(reply),
    ...(reply.usage === undefined ? {} : { usage_metadata: usageMetadataOf(reply.usage) }),
  });
}

/** One event of a streamed reply as the chunk `stream` yields; `id` is the reply's, on every chunk. */
export function toEventChunk(event: ReplyEvent, id: string): AIMessageChunk {
  switch (event.type) {
    case "text":
      return textChunk(event.text, id);
    case "reasoning":
      // model_provider makes `contentBlocks` give this piece as a standard `reasoning` block.
      return new AIMessageChunk({
        id,
        content: "",
        additional_kwargs: { reasoning_content: event.text },
        response_metadata: { model_provider: MODEL_PROVIDER },
      });
    case "tool-call":
      return new AIMessageChunk({
        id,
        content: "",
        tool_call_chunks: [
          { type: "tool_call_chunk", index: event.index, id: event.id, name: event.name, args: event.arguments },
        ],
      });
  }
}

/**
 * A text delta as a chunk: the same chunk as `new AIMessageChunk({ id, content: text })`, built the
 * way LangChain's own stream path gives a chunk its id (`_updateId`) after the constructor's string
 * form. On Node 20 the object form costs about 6 us a chunk, nearly all in the spread of its fields
 * (0.2 us for the string form), which made it a quarter of ChatGateway's CPU on the chat-client
 * text stream row; this took that row from 1.91 to 1.10 ms a request (ChatOpenAI 4.82 ms, 4 rounds
 * from dist). Checked against the object form by test/chat-text-chunk.test.ts.
 */
export function textChunk(text: string, id: string): AIMessageChunk {
  const chunk = new AIMessageChunk(text);
  chunk._updateId(id);
  return chunk;
}

/** The last chunk of a streamed reply: metadata, usage and tool-call extras once (LangChain adds
 * numbers and joins strings when it merges chunks), and an image model's decoded content. */
export function toFinalChunk(reply: ChatReply, id: string): AIMessageChunk {
  return new AIMessageChunk({
    id,
    // An image model's reply is not streamed in pieces: it comes whole, here.
    content: getModel(reply.model).capabilities.imageGeneration ? contentOf(reply) : "",
    additional_kwargs: extrasOf(reply),
    response_metadata: { ...replyMetadata(reply), finish_reason: reply.finishReason },
    ...(reply.usage === undefined ? {} : { usage_metadata: usageMetadataOf(reply.usage) }),
  });
}

/** The gateway's usage as LangChain's `usage_metadata`, with the details ChatOpenAI reads (cached
 * prompt tokens as `cache_read`, which LangSmith prices apart; audio; reasoning). */
export function usageMetadataOf(usage: Usage): UsageMetadata {
  const prompt = usage.prompt_tokens_details ?? undefined;
  const completion = usage.completion_tokens_details ?? undefined;
  const input = details({ audio: prompt?.audio_tokens, cache_read: prompt?.cached_tokens });
  const output = details({ audio: completion?.audio_tokens, reasoning: completion?.reasoning_tokens });
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    ...(input === undefined ? {} : { input_token_details: input }),
    ...(output === undefined ? {} : { output_token_details: output }),
  };
}

// The counts a relay gave (a relay's null or absent count is left out), or undefined for none.
function details(counts: Record<string, unknown>): Record<string, number> | undefined {
  const given = Object.entries(counts).filter((entry): entry is [string, number] => typeof entry[1] === "number");
  return given.length === 0 ? undefined : Object.fromEntries(given);
}

/** `response_metadata` of a reply; set once per message (LangChain concatenates strings and adds
 * numbers when it merges chunks, so a streamed reply carries it on its final chunk only). */
export function replyMetadata(reply: ChatReply): Record<string, unknown> {
  return {
    model_provider: MODEL_PROVIDER,
    model_name: reply.servedModel,
    model: reply.model,
    requested_model: reply.requestedModel,
    finish_reason: reply.finishReason,
    request_id: reply.ids.requestId,
    audit_id: reply.ids.auditId,
    backend_id: reply.ids.backendId,
    ...(reply.usage === undefined ? { usage_missing: true } : { usage: reply.usage }),
    ...(reply.fallbackFrom.length > 0 ? { fallback_from: [...reply.fallbackFrom] } : {}),
    ...(reply.images > 0 ? { images: reply.images } : {}),
  };
}

/** Every image a message carries (decoded image-model output or image input), as bytes. */
export function imagesFromMessage(message: BaseMessage): MessageImage[] {
  const content = message.content;
  if (typeof content === "string") {
    return imagesFromReply(content);
  }
  const images: MessageImage[] = [];
  for (const block of content as readonly Record<string, unknown>[]) {
    if (block.type === "image" && typeof block.data === "string") {
      images.push(toImage({ mimeType: String(block.mimeType ?? block.mime_type ?? "image/png"), data: block.data }));
    } else if (block.type === "image" && block.data instanceof Uint8Array) {
      images.push({ mimeType: String(block.mimeType ?? "image/png"), bytes: Buffer.from(block.data) });
    }
  }
  return images;
}

function toToolCall(call: ChatReply["toolCalls"][number]): ToolCall {
  return { type: "tool_call", id: call.id, name: call.name, args: call.arguments };
}

function toInvalidToolCall(call: ChatReply["invalidToolCalls"][number]): InvalidToolCall {
  return {
    type: "invalid_tool_call",
    id: call.id,
    ...(call.name === undefined ? {} : { name: call.name }),
    args: call.arguments,
    error: call.error,
  };
}

// An image model's reply becomes text and image blocks; any other reply stays a string.
function contentOf(reply: ChatReply): MessageContent {
  if (reply.images === 0) return reply.content;
  return decodeImageReply(reply.content) ?? reply.content;
}

function extrasOf(reply: ChatReply): Record<string, unknown> {
  return Object.keys(reply.toolCallExtras).length > 0 ? { [TOOL_CALL_EXTRAS_KEY]: reply.toolCallExtras } : {};
}
