import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatRequest } from "../gateway/wire.js";
import type { SamplingSettings } from "./apply-model-rules.js";
import { toWireMessages } from "./convert-messages.js";
import { toJsonSchema, toWireTool, toWireToolChoice } from "./convert-tools.js";
import type { ChatInput } from "./plan-request.js";

/** The call options that shape a request (set by `bindTools`, agents and structured output). */
export interface ChatCallFields {
  tools?: BindToolsInput[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  /** A JSON Schema format may carry a zod schema (agents pass one); it is converted here. */
  response_format?: ChatRequest["response_format"] & { json_schema?: { schema?: unknown } };
  stop?: string[];
}

/** LangChain messages and call options as the input every model of a fallback chain is planned from. */
export function buildChatInput(
  messages: readonly BaseMessage[],
  call: ChatCallFields,
  settings: SamplingSettings,
  stream: boolean,
): ChatInput {
  const tools = call.tools?.map(toWireTool);
  const format = call.response_format;
  const schema = format?.json_schema?.schema;
  return {
    messages: toWireMessages(messages),
    ...(tools?.length ? { tools } : {}),
    toolChoice: toWireToolChoice(call.tool_choice, tools),
    parallelToolCalls: call.parallel_tool_calls,
    responseFormat:
      format === undefined || schema === undefined
        ? format
        : { ...format, json_schema: { ...format.json_schema, schema: toJsonSchema(schema, "response_format") } },
    settings: call.stop === undefined ? settings : Object.assign({}, settings, { stop: call.stop }),
    stream,
  };
}
