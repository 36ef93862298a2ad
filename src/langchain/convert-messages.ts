import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { ParameterError } from "../errors.js";
import type { Message, ToolCall } from "../gateway/wire.js";
import { toWireContent } from "./convert-content.js";
import { replyBlocksToMarkdown } from "../chat/decode-image-reply.js";

/** Key in an AIMessage's `additional_kwargs` holding each tool call's unknown wire fields, by call id
 * (for example a gamma model's `thought_signature`); they are sent back on the next turn. */
export const TOOL_CALL_EXTRAS_KEY = "tool_call_extras";

/** Unknown wire fields of tool calls, by tool call id. */
export type ToolCallExtras = Record<string, Record<string, unknown>>;

const ROLES: Readonly<Record<string, Message["role"]>> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  developer: "developer",
  tool: "tool",
};

/** LangChain messages as the wire's `messages`. */
export function toWireMessages(messages: readonly BaseMessage[]): Message[] {
  return messages.map(toWireMessage);
}

/** One LangChain message as a wire message. */
export function toWireMessage(message: BaseMessage): Message {
  const type = message.type === "generic" ? (message as BaseMessage & { role: string }).role : message.type;
  const role = ROLES[type];
  if (!role) {
    throw new ParameterError(`Messages of type "${type}" cannot be sent. Use system, human, ai or tool messages.`);
  }
  const name = message.name ? { name: message.name } : {};
  switch (role) {
    case "assistant":
      return assistantMessage(message as AIMessage, name);
    case "tool": {
      const toolCallId = (message as ToolMessage).tool_call_id;
      if (!toolCallId) throw new ParameterError("A tool message needs tool_call_id: the id of the call it answers.");
      return { role, tool_call_id: toolCallId, content: toWireContent(message.content) };
    }
    default:
      return { role, content: toWireContent(message.content), ...name };
  }
}

function assistantMessage(message: AIMessage, name: { name?: string }): Message {
  const content =
    typeof message.content === "string"
      ? message.content
      : replyBlocksToMarkdown(message.content as readonly Record<string, unknown>[]);
  const extras = (message.additional_kwargs?.[TOOL_CALL_EXTRAS_KEY] ?? {}) as ToolCallExtras;
  const toolCalls: ToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    toolCalls.push(wireToolCall(call.id, call.name, JSON.stringify(call.args ?? {}), extras));
  }
  for (const call of message.invalid_tool_calls ?? []) {
    toolCalls.push(wireToolCall(call.id, call.name ?? "", call.args ?? "", extras));
  }
  if (toolCalls.length === 0) return { role: "assistant", content, ...name };
  return { role: "assistant", content: content.length > 0 ? content : null, tool_calls: toolCalls, ...name };
}

function wireToolCall(id: string | undefined, name: string, args: string, extras: ToolCallExtras): ToolCall {
  if (!id) {
    throw new ParameterError(`The tool call "${name}" has no id; the tool message that answers it needs one.`);
  }
  return { ...extras[id], id, type: "function", function: { name, arguments: args } };
}
