import { z } from "zod";
import type { ChatStep } from "../schema/step-schemas.js";
import { buildChatMessages, messageFieldsSchema } from "./build-chat-messages.js";
import { parseStepInput } from "./parse-step-input.js";
import { modelOf, runToolLoop } from "./run-tool-loop.js";
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
  const model = services.chatModel({
    model: context.models.model!,
    fallbacks: context.models.fallbacks,
    ...pick(input.temperature ?? context.settings.temperature, input.maxTokens ?? context.settings.maxTokens, input.stop),
  });
  const messages = await buildChatMessages(input, { baseDir: services.baseDir, runDir: services.runDir, signal });
  if (input.schema !== undefined) return model.withStructuredOutput(input.schema).invoke(messages, { signal });
  if (input.tools !== undefined && input.tools.length > 0) {
    const result = await runToolLoop(model, services.tools(input.tools, context.toolContext), messages, { maxRounds: input.maxToolRounds ?? DEFAULT_TOOL_ROUNDS, signal });
    return { text: result.text, model: result.model, toolCalls: result.toolCalls };
  }
  const reply = await model.invoke(messages, { signal });
  return { text: reply.text, model: modelOf(reply) };
}

/** The optional sampling settings that are set, ready to spread into a ChatModelRequest. */
export function pick(temperature: number | undefined, maxTokens: number | undefined, stop: string[] | undefined) {
  return {
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(stop === undefined ? {} : { stop }),
  };
}
