import { AbortedError, StreamError, type SvcFlowError } from "../errors.js";
import type { CompletedReply, PartialReply } from "./collect-reply.js";

/** The error of a stream that failed after output was shown (too late to fall back): a
 * StreamError carrying the partial output, the original failure as its cause. An abort by the
 * caller stays an AbortedError. */
export function brokenStreamError(error: unknown, partial: PartialReply): SvcFlowError {
  if (error instanceof AbortedError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const original = (error ?? {}) as Partial<SvcFlowError>;
  return new StreamError(
    `The stream from ${partial.model} failed after output had started, so it could not fall back: ${reason} ` +
      "The output so far is on error.partial; retry the call to get a complete reply.",
    {
      cause: error,
      ...(original.requestId ? { requestId: original.requestId } : {}),
      ...(original.auditId ? { auditId: original.auditId } : {}),
      ...(original.backendId ? { backendId: original.backendId } : {}),
      retryable: original.retryable ?? true,
      partial,
    },
  );
}

/** The error of a streamed reply whose tool-call arguments are not a JSON object (usually cut off
 * by the output budget); LangChain would otherwise parse the chunks leniently and pass them on. */
export function invalidToolCallError(reply: CompletedReply): StreamError | undefined {
  const [invalid] = reply.toolCalls.invalidToolCalls;
  if (!invalid) return undefined;
  return new StreamError(
    `Tool call "${invalid.name ?? "?"}" from ${reply.servedModel} has unusable arguments: ${invalid.error} ` +
      `(finish_reason "${reply.finishReason}"). Raise maxTokens if the reply was cut.`,
    {
      ...reply.ids,
      retryable: false,
      partial: { model: reply.servedModel, content: reply.content, toolCalls: reply.toolCalls } satisfies PartialReply,
    },
  );
}
