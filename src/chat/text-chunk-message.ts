import type { AIMessageChunk } from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall, ToolCallChunk } from "@langchain/core/messages/tool";
import { ChunkMessage } from "./chunk-message.js";
import { EmptyObject, emptyArray, plainObjectMaker } from "./plain-object.js";

interface TextChunkKwargsFields {
  content: string;
  tool_calls: ToolCall[];
  invalid_tool_calls: InvalidToolCall[];
  tool_call_chunks: ToolCallChunk[];
  additional_kwargs: object;
  response_metadata: object;
}

/** The message `new AIMessageChunk(text)` makes, property for property, allocating a third less. */
export function textChunkMessage(text: string): AIMessageChunk {
  // LangChain's constructor allocates an options object it then grows past its in-object slots,
  // three class-field arrays it then replaces, and the message itself. This makes only what the
  // message keeps: 384 bytes a message against 571 (measured).
  return chunkMessageOf(text, emptyArray<ToolCall>(), emptyArray<InvalidToolCall>(), emptyArray<ToolCallChunk>());
}

/** textChunkMessage's message with these tool calls, invalid tool calls and tool-call chunks in
 * place of its empty arrays (the same keys in the same order, as the text message's). */
export function chunkMessageOf(
  text: string,
  toolCalls: ToolCall[],
  invalidToolCalls: InvalidToolCall[],
  toolCallChunks: ToolCallChunk[],
): AIMessageChunk {
  const additionalKwargs = new EmptyObject();
  const responseMetadata = new EmptyObject();
  const kwargs = new TextChunkKwargs(text, toolCalls, invalidToolCalls, toolCallChunks, additionalKwargs, responseMetadata);
  return new ChunkMessage(text, kwargs, additionalKwargs, responseMetadata, toolCalls, invalidToolCalls, toolCallChunks, undefined);
}

// LangChain's lc_kwargs for a string: the same keys in the same order, sharing the message's values.
const TextChunkKwargs = plainObjectMaker(function (
  this: TextChunkKwargsFields,
  content: string,
  toolCalls: ToolCall[],
  invalidToolCalls: InvalidToolCall[],
  toolCallChunks: ToolCallChunk[],
  additionalKwargs: object,
  responseMetadata: object,
) {
  this.content = content;
  this.tool_calls = toolCalls;
  this.invalid_tool_calls = invalidToolCalls;
  this.tool_call_chunks = toolCallChunks;
  this.additional_kwargs = additionalKwargs;
  this.response_metadata = responseMetadata;
});
