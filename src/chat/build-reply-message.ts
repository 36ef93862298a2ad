import { AIMessage, collapseToolCallChunks, type AIMessageChunk, type MessageContent } from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall, ToolCallChunk } from "@langchain/core/messages/tool";
import type { ModelInfo } from "../catalog/models.js";
import type { CompletedReply, ReplyEvent } from "./collect-reply.js";
import { TOOL_CALL_EXTRAS_KEY } from "./convert-messages.js";
import { countReplyImages, decodeImageReply } from "./decode-image-reply.js";
import { finalChunkMessage } from "./final-chunk-message.js";
import { replyMetadata, usageMetadataOf } from "./reply-metadata.js";
import { arrayOfLength, emptyArray } from "./plain-object.js";
import { chunkMessageOf, textChunkMessage } from "./text-chunk-message.js";

/** Which call produced a reply: the model asked for, and the ones it fell back from. */
export interface ReplyOrigin {
  readonly requestedModel: string;
  readonly model: ModelInfo;
  readonly fallbackFrom: readonly string[];
}

/** A complete reply as the AIMessage `invoke` returns. */
export function toAIMessage(reply: CompletedReply, origin: ReplyOrigin): AIMessage {
  const { content, images } = contentOf(reply, origin.model);
  return new AIMessage({
    content,
    ...(reply.responseId === undefined ? {} : { id: reply.responseId }),
    tool_calls: reply.toolCalls.toolCalls,
    invalid_tool_calls: reply.toolCalls.invalidToolCalls,
    additional_kwargs: extrasOf(reply),
    response_metadata: metadataOf(reply, origin, images),
    ...(reply.usage === undefined ? {} : { usage_metadata: usageMetadataOf(reply.usage) }),
  });
}

/** One piece of a streamed reply as the chunk `stream` yields (LangChain gives it the run's id). */
export function toEventChunk(event: ReplyEvent): AIMessageChunk {
  if (event.type === "text") return textChunkMessage(event.text);
  return toolCallChunkMessage(event.chunks);
}

// Given tool_call_chunks, LangChain's constructor makes tool_calls and invalid_tool_calls lazy
// getters (Object.defineProperty). V8 allocates every accessor pair in the old generation, so the
// message and all it points to then outlive young-generation GCs until the next full GC: 3.2 MB
// promoted per scavenge at 64 tool-call streams (measured). Built without them, and given the
// values those getters would return as plain properties, the message is the same and dies young.
function toolCallChunkMessage(chunks: ToolCallChunk[]): AIMessageChunk {
  const { tool_calls, invalid_tool_calls } = collapseEventChunks(chunks);
  return chunkMessageOf("", tool_calls, invalid_tool_calls, chunks);
}

// What collapseToolCallChunks gives for one event's chunks, without parsing the fragments it
// throws away: LangChain takes a fragment without an id (every fragment but a call's first) for an
// invalid call whatever it holds, and parsing them all eagerly cost more than the whole stream.
// Fragments with an id are LangChain's to parse; anything but one fragment per call, LangChain's whole.
function collapseEventChunks(chunks: ToolCallChunk[]): { tool_calls: ToolCall[]; invalid_tool_calls: InvalidToolCall[] } {
  if (!oneFragmentPerCall(chunks)) return collapseToolCallChunks(chunks);
  // Nearly every event has one fragment: its arrays are made with one slot, not grown by push.
  if (chunks.length === 1) {
    const chunk = chunks[0]!;
    const args = (chunk.args ?? "").trim();
    if (!chunk.id) return { tool_calls: emptyArray(), invalid_tool_calls: oneOf(idlessFragment(chunk, args)) };
    if (args === "") return { tool_calls: oneOf(firstFragment(chunk)), invalid_tool_calls: emptyArray() };
  }
  const tool_calls: ToolCall[] = [];
  const invalid_tool_calls: InvalidToolCall[] = [];
  for (const chunk of chunks) {
    const args = (chunk.args ?? "").trim();
    if (!chunk.id) invalid_tool_calls.push(idlessFragment(chunk, args));
    else if (args === "") tool_calls.push(firstFragment(chunk));
    else {
      const collapsed = collapseToolCallChunks([chunk]);
      tool_calls.push(...collapsed.tool_calls);
      invalid_tool_calls.push(...collapsed.invalid_tool_calls);
    }
  }
  return { tool_calls, invalid_tool_calls };
}

function idlessFragment(chunk: ToolCallChunk, args: string): InvalidToolCall {
  return { name: chunk.name ?? "", args: args || "{}", id: chunk.id, error: "Malformed args.", type: "invalid_tool_call" };
}

// A call's first fragment usually has no arguments yet: LangChain parses "{}" for it.
function firstFragment(chunk: ToolCallChunk): ToolCall {
  return { name: chunk.name ?? "", args: {}, id: chunk.id, type: "tool_call" };
}

function oneOf<T>(item: T): T[] {
  const items = arrayOfLength<T>(1);
  items[0] = item;
  return items;
}

/** True when each fragment has its own index, and none is a custom tool's (raw input). */
function oneFragmentPerCall(chunks: ToolCallChunk[]): boolean {
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    if (chunk.index === undefined || "isCustomTool" in chunk) return false;
    for (let j = 0; j < i; j++) if (chunks[j]!.index === chunk.index) return false;
  }
  return true;
}

/** The last chunk of a streamed reply: metadata, usage and tool-call extras once (LangChain adds
 * numbers and joins strings when it merges chunks), and an image model's decoded content. */
export function toFinalChunk(reply: CompletedReply, origin: ReplyOrigin): AIMessageChunk {
  const { content, images } = origin.model.capabilities.imageGeneration
    ? contentOf(reply, origin.model)
    : { content: "", images: 0 };
  const usage = reply.usage === undefined ? undefined : usageMetadataOf(reply.usage);
  return finalChunkMessage(content, extrasOf(reply), metadataOf(reply, origin, images), usage);
}

/** Images a reply carries (image models bill per image). */
export function imagesIn(reply: CompletedReply, model: ModelInfo): number {
  return model.capabilities.imageGeneration ? countReplyImages(reply.content) : 0;
}

function contentOf(reply: CompletedReply, model: ModelInfo): { content: MessageContent; images: number } {
  if (!model.capabilities.imageGeneration) return { content: reply.content, images: 0 };
  const blocks = decodeImageReply(reply.content);
  if (!blocks) return { content: reply.content, images: 0 };
  return { content: blocks, images: blocks.filter((block) => block.type === "image").length };
}

function extrasOf(reply: CompletedReply): Record<string, unknown> {
  return Object.keys(reply.toolCalls.extras).length > 0 ? { [TOOL_CALL_EXTRAS_KEY]: reply.toolCalls.extras } : {};
}

function metadataOf(reply: CompletedReply, origin: ReplyOrigin, images: number): Record<string, unknown> {
  return replyMetadata({
    requestedModel: origin.requestedModel,
    model: origin.model.id,
    servedModel: reply.servedModel,
    finishReason: reply.finishReason,
    ids: reply.ids,
    ...(reply.usage === undefined ? {} : { usage: reply.usage }),
    fallbackFrom: origin.fallbackFrom,
    images,
  });
}
