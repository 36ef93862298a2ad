import type { CompletionMeta } from "../rendered-reply.js";
import type { SimulatedReply } from "../simulate/index.js";
import type { ReplyParts } from "./dialect.js";

/** What a relay that passes reasoning along shows of a simulated model's hidden reasoning: the
 * simulation has its token count, not its text, so the text says only that much. */
export function reasoningText(reasoningTokens: number): string {
  return reasoningTokens > 0 ? `Thought about the request before answering (${reasoningTokens} reasoning tokens).` : "";
}

/** A simulated reply as the parts every dialect renders. */
export function replyParts(
  reply: SimulatedReply,
  promptTokens: number,
  meta: CompletionMeta,
  requestedModel: string,
): ReplyParts {
  return {
    id: meta.id,
    created: meta.created,
    model: meta.model,
    requestedModel,
    content: reply.content,
    reasoning: reasoningText(reply.reasoningTokens),
    toolCalls: reply.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      ...(call.extra === undefined ? {} : { extra: call.extra }),
    })),
    finishReason: reply.finishReason,
    usage: { promptTokens, completionTokens: reply.completionTokens, reasoningTokens: reply.reasoningTokens },
  };
}
