import { z } from "zod";
import type { ChatStep } from "../schema/step-schemas.js";
import { buildChatMessages, messageFieldsSchema } from "./build-chat-messages.js";
import { parseStepInput } from "./parse-step-input.js";
import type { ChatCall } from "../../chat/call-chat.js";
import { parseStructuredReply, prepareSchema, structuredRequest } from "../../chat/prepare-schema.js";
import { runToolLoop } from "./run-tool-loop.js";
import type { LeafContext } from "./step-kind.js";

/** Default tool-call rounds of a chat step with tools. */
export const DEFAULT_TOOL_ROUNDS = 8;

/** Sampling fields shared by chat and agent steps, after rendering. */
export const samplingFieldsSchema = z.object({
  temperature: z.number().min(0).max(1).optional(),
  maxTokens: z.int().positive().optional(),
  stop: z.union([z.string().transform((stop) => [stop]), z.array(z.string())]).optional(),
});

const chatInputSchema = messageFieldsSchema.extend({
  ...samplingFieldsSchema.shape,
  schema: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(z.string()).optional(),
  maxToolRounds: z.int().positive().optional(),
});

/**
 * `uses: chat`. Output: `{ text, model }`; with `schema`, the parsed value itself (checked against
 * the schema); with `tools`, also `toolCalls` (what was called, with what, and the answers).
 */
export async function runChatStep(context: LeafContext<ChatStep>): Promise<unknown> {
  const input = parseStepInput(chatInputSchema, context.input, context.key);
  const { services, signal } = context;
  const messages = await buildChatMessages(input, {
    baseDir: services.baseDir,
    runDir: services.runDir,
    signal,
    ...(services.mediaDispatcher === undefined ? {} : { dispatcher: services.mediaDispatcher }),
  });
  const temperature = input.temperature ?? context.settings.temperature;
  const maxTokens = input.maxTokens ?? context.settings.maxTokens;
  const call = {
    model: context.models.model!,
    fallbacks: context.models.fallbacks,
    messages,
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    ...(input.stop === undefined ? {} : { stop: input.stop }),
  };
  const chat = (request: Omit<ChatCall, "stream">) => services.chat(request, signal);
  if (input.schema !== undefined) {
    const prepared = prepareSchema(input.schema);
    return parseStructuredReply(await chat({ ...call, ...structuredRequest(prepared) }), prepared);
  }
  if (input.tools !== undefined && input.tools.length > 0) {
    const result = await runToolLoop(chat, call, services.tools(input.tools, context.toolContext), {
      maxRounds: input.maxToolRounds ?? DEFAULT_TOOL_ROUNDS,
      signal,
    });
    return { text: result.text, model: result.model, toolCalls: result.toolCalls };
  }
  const reply = await chat(call);
  return { text: reply.content, model: reply.model };
}

/** The optional sampling settings that are set, ready to spread into a ChatModelRequest. */
export function pick(temperature: number | undefined, maxTokens: number | undefined, stop: string[] | undefined) {
  return {
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(stop === undefined ? {} : { stop }),
  };
}
