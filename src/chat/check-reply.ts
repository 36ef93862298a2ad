import type { ModelInfo } from "../catalog/models.js";
import { EmptyOutputError } from "../errors.js";
import type { Usage } from "../gateway/wire.js";
import type { CompletedReply } from "./collect-reply.js";
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

/** The error for a reasoning or thinking model that spent its whole budget (`outputLimit`, when
 * the request set one) and said nothing; undefined when the reply is not empty or the model does
 * not reason. */
export function emptyOutputError(
  model: ModelInfo,
  reply: CompletedReply,
  outputLimit: number | undefined,
): EmptyOutputError | undefined {
  if (!model.capabilities.reasoning || reply.content.trim().length > 0) return undefined;
  if (reply.toolCalls.toolCalls.length + reply.toolCalls.invalidToolCalls.length > 0) return undefined;
  const reasoning = reply.usage?.completion_tokens_details?.reasoning_tokens;
  const spent = reasoning === undefined ? "" : ` (${reasoning} reasoning tokens)`;
  const budget = outputLimit === undefined ? "the default output budget" : `its budget of ${outputLimit} tokens`;
  const advice = Math.max(4096, (outputLimit ?? 0) * 4, model.rules.minOutputTokens ?? 0);
  return new EmptyOutputError(
    `${model.id} returned no output: its reasoning used ${budget}${spent}, finish_reason ` +
      `"${reply.finishReason ?? "none"}". Raise maxTokens (for example to ${advice}).`,
    reply.ids,
  );
}
