import { AIMessageChunk, type MessageContent, type UsageMetadata } from "@langchain/core/messages";
import type { InvalidToolCall, ToolCall, ToolCallChunk } from "@langchain/core/messages/tool";

// LangChain's marker (messages/base.js); BaseMessage.isInstance requires it to be true.
const MESSAGE_SYMBOL: unique symbol = Symbol.for("langchain.message");

interface ChunkMessageFields {
  lc_serializable: boolean;
  lc_kwargs: object;
  lc_namespace: string[];
  [MESSAGE_SYMBOL]: boolean;
  id: undefined;
  name: undefined;
  content: MessageContent;
  additional_kwargs: object;
  response_metadata: object;
  type: "ai";
  tool_calls: ToolCall[];
  invalid_tool_calls: InvalidToolCall[];
  tool_call_chunks: ToolCallChunk[];
  usage_metadata: UsageMetadata | undefined;
}

// The own properties of a message LangChain's AIMessageChunk constructor makes, in the order its
// class fields define them, from the values the message keeps; `lc_kwargs` is the caller's, as
// it differs with what LangChain's constructor was given. One constructor for every chunk we make,
// so they all share one hidden class. A constructor function rather than Object.create: V8 sizes
// its objects to the fourteen properties, where Object.create's four in-object slots spill the
// rest into a backing store. No literal either: see plain-object.ts.
function ChunkMessageFields(
  this: ChunkMessageFields,
  content: MessageContent,
  kwargs: object,
  additionalKwargs: object,
  responseMetadata: object,
  toolCalls: ToolCall[],
  invalidToolCalls: InvalidToolCall[],
  toolCallChunks: ToolCallChunk[],
  usageMetadata: UsageMetadata | undefined,
): void {
  this.lc_serializable = true;
  this.lc_kwargs = kwargs;
  this.lc_namespace = NAMESPACE.slice();
  this[MESSAGE_SYMBOL] = true;
  this.id = undefined;
  this.name = undefined;
  this.content = content;
  this.additional_kwargs = additionalKwargs;
  this.response_metadata = responseMetadata;
  this.type = "ai";
  this.tool_calls = toolCalls;
  this.invalid_tool_calls = invalidToolCalls;
  this.tool_call_chunks = toolCallChunks;
  this.usage_metadata = usageMetadata;
}
ChunkMessageFields.prototype = AIMessageChunk.prototype;

/** An AIMessageChunk made field by field (id and name undefined), for a caller that builds the
 * `lc_kwargs` LangChain's constructor would have kept. */
export const ChunkMessage = ChunkMessageFields as unknown as new (...fields: Parameters<typeof ChunkMessageFields>) => AIMessageChunk;

const NAMESPACE = ["langchain_core", "messages"];
