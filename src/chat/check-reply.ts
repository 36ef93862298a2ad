import type { ModelInfo } from "../catalog/models.js";
import { EmptyOutputError, type GatewayIds } from "../errors.js";
import type { Usage } from "../gateway/wire.js";
import { ChatWarning } from "./parameter-warning.js";

/** A warning when usage is missing (a stream without a usage chunk) or does not add up. */
export function checkUsage(model: string, usage: Usage | undefined): ChatWarning | undefined {
  if (usage === undefined) {
    return new ChatWarning(
      "usage_missing",
      model,
      `The stream from ${model} ended without a usage chunk: its tokens are unknown and its cost is not recorded exactly.`,
    );
  }
  if (usage.total_tokens !== usage.prompt_tokens + usage.completion_tokens) {
    return new ChatWarning(
      "usage_mismatch",
      model,
      `Usage from ${model} does not add up: total_tokens ${usage.total_tokens} != prompt_tokens ` +
        `${usage.prompt_tokens} + completion_tokens ${usage.completion_tokens}.`,
    );
  }
  return undefined;
}

/** The error for a reasoning or thinking model that spent its whole budget and said nothing;
 * undefined when the reply is not empty or the model does not reason. */
export function emptyOutputError(
  model: ModelInfo,
  reply: { content: string; toolCalls: number; finishReason: string | null; usage?: Usage; outputLimit?: number },
  ids: GatewayIds,
): EmptyOutputError | undefined {
  if (!model.capabilities.reasoning || reply.toolCalls > 0 || reply.content.trim().length > 0) return undefined;
  const reasoning = reply.usage?.completion_tokens_details?.reasoning_tokens;
  const spent = reasoning === undefined ? "" : ` (${reasoning} reasoning tokens)`;
  const budget =
    reply.outputLimit === undefined ? "the default output budget" : `its budget of ${reply.outputLimit} tokens`;
  const advice = Math.max(4096, (reply.outputLimit ?? 0) * 4, model.rules.minOutputTokens ?? 0);
  return new EmptyOutputError(
    `${model.id} returned no output: its reasoning used ${budget}${spent}, finish_reason ` +
      `"${reply.finishReason ?? "none"}". Raise maxTokens (for example to ${advice}).`,
    ids,
  );
}
