import type { UsageMetadata } from "@langchain/core/messages";
import type { ModelInfo } from "../catalog/models.js";
import { EmptyOutputError, type GatewayIds } from "../errors.js";
import type { Usage } from "../gateway/wire.js";
import { ChatWarning } from "./parameter-warning.js";

/** What is known about a reply once it is complete, for `response_metadata`. */
export interface ReplyFacts {
  /** The model the caller asked for (the head of the fallback chain). */
  readonly requestedModel: string;
  /** The catalogue id that served, after any fallback. */
  readonly model: string;
  /** The model the gateway reported (a dated version behind the alias). */
  readonly servedModel: string;
  readonly finishReason: string | null;
  readonly ids: GatewayIds;
  readonly usage?: Usage;
  /** Models tried before the one that served, when the call fell back. */
  readonly fallbackFrom?: readonly string[];
  /** Images decoded from an image model's reply. */
  readonly images?: number;
}

/** The gateway's usage as LangChain's `usage_metadata`. */
export function usageMetadataOf(usage: Usage): UsageMetadata {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    ...(reasoning === undefined ? {} : { output_token_details: { reasoning } }),
  };
}

/** `response_metadata` of a reply; set once per message (LangChain concatenates strings and adds
 * numbers when it merges chunks, so a streamed reply carries it on its final chunk only). */
export function replyMetadata(facts: ReplyFacts): Record<string, unknown> {
  return {
    model_name: facts.servedModel,
    model: facts.model,
    requested_model: facts.requestedModel,
    finish_reason: facts.finishReason,
    request_id: facts.ids.requestId,
    audit_id: facts.ids.auditId,
    backend_id: facts.ids.backendId,
    ...(facts.usage === undefined ? { usage_missing: true } : { usage: facts.usage }),
    ...(facts.fallbackFrom?.length ? { fallback_from: [...facts.fallbackFrom] } : {}),
    ...(facts.images ? { images: facts.images } : {}),
  };
}

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
  const budget = reply.outputLimit === undefined ? "the default output budget" : `its budget of ${reply.outputLimit} tokens`;
  const advice = Math.max(4096, (reply.outputLimit ?? 0) * 4, model.rules.minOutputTokens ?? 0);
  return new EmptyOutputError(
    `${model.id} returned no output: its reasoning used ${budget}${spent}, finish_reason ` +
      `"${reply.finishReason ?? "none"}". Raise maxTokens (for example to ${advice}).`,
    ids,
  );
}
