import { AIMessageChunk } from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall, ToolCallChunk } from "@langchain/core/messages/tool";
import { EmptyObject, emptyArray, plainObjectMaker } from "./plain-object.js";

// LangChain's marker (messages/base.js); BaseMessage.isInstance requires it to be true.
const MESSAGE_SYMBOL: unique symbol = Symbol.for("langchain.message");

interface TextChunkKwargsFields {
  content: string;
  tool_calls: ToolCall[];
  invalid_tool_calls: InvalidToolCall[];
  tool_call_chunks: ToolCallChunk[];
  additional_kwargs: object;
  response_metadata: object;
}

interface TextChunkFields {
  lc_serializable: boolean;
  lc_kwargs: TextChunkKwargsFields;
  lc_namespace: string[];
  [MESSAGE_SYMBOL]: boolean;
  id: undefined;
  name: undefined;
  content: string;
  additional_kwargs: object;
  response_metadata: object;
  type: "ai";
  tool_calls: ToolCall[];
  invalid_tool_calls: InvalidToolCall[];
  tool_call_chunks: ToolCallChunk[];
  usage_metadata: undefined;
}

/** The message `new AIMessageChunk(text)` makes, property for property, allocating a third less. */
export function textChunkMessage(text: string): AIMessageChunk {
  return new TextChunk(text);
}

// LangChain's constructor allocates an options object it then grows past its in-object slots,
// three class-field arrays it then replaces, and the message itself. This writes only what the
// message keeps, in the order LangChain's class fields define them (so the same own keys, and one
// hidden class for every message): 384 bytes a message against 571 (measured). A constructor
// function rather than Object.create: V8 sizes its objects to the fourteen properties, where
// Object.create's four in-object slots spill the rest into a backing store. No literal either:
// see plain-object.ts for why every object of a streamed chunk is made without an allocation site.
function TextChunkFields(this: TextChunkFields, text: string): void {
  const toolCalls = emptyArray<ToolCall>();
  const invalidToolCalls = emptyArray<InvalidToolCall>();
  const toolCallChunks = emptyArray<ToolCallChunk>();
  const additionalKwargs = new EmptyObject();
  const responseMetadata = new EmptyObject();
  this.lc_serializable = true;
  this.lc_kwargs = new TextChunkKwargs(text, toolCalls, invalidToolCalls, toolCallChunks, additionalKwargs, responseMetadata);
  this.lc_namespace = NAMESPACE.slice();
  this[MESSAGE_SYMBOL] = true;
  this.id = undefined;
  this.name = undefined;
  this.content = text;
  this.additional_kwargs = additionalKwargs;
  this.response_metadata = responseMetadata;
  this.type = "ai";
  this.tool_calls = toolCalls;
  this.invalid_tool_calls = invalidToolCalls;
  this.tool_call_chunks = toolCallChunks;
  this.usage_metadata = undefined;
}
TextChunkFields.prototype = AIMessageChunk.prototype;
const TextChunk = TextChunkFields as unknown as new (text: string) => AIMessageChunk;

const NAMESPACE = ["langchain_core", "messages"];

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
