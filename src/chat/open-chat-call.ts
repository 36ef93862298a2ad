import { checkIdempotencyKey } from "../gateway/call-headers.js";
import type { AttemptContext } from "./attempt-hold.js";
import { brokenStreamError } from "./broken-stream.js";
import type { ReplyOrigin } from "./build-reply-message.js";
import type { CallDeadline } from "./call-deadline.js";
import { callWithFallback } from "./call-with-fallback.js";
import type { ResolvedChatGatewayOptions } from "./chat-gateway-options.js";
import { ChatWarning } from "./parameter-warning.js";
import { planChain, type ChatInput } from "./plan-request.js";
import { runAttempt, type OpenReply } from "./run-attempt.js";

/** Plans a call for the whole fallback chain, then tries each model (with retries) until one
 * answers; resolves once the reply has shown its first output, or is complete. */
export async function openChatCall(
  options: ResolvedChatGatewayOptions,
  input: ChatInput,
  deadline: CallDeadline,
  idempotencyKey?: string,
): Promise<{ open: OpenReply; origin: ReplyOrigin }> {
  if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey);
  const { plans, skipped } = planChain(options.chain, input);
  const { warnings } = options;
  const signal = deadline.signal === undefined ? {} : { signal: deadline.signal };
  const context: AttemptContext = {
    client: options.client,
    slots: options.scheduler,
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
    ...(options.usageTags === undefined ? {} : { usageTags: options.usageTags }),
    onWarning(warning) {
      warnings.emit(warning);
    },
    ...signal,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  };
  const result = await callWithFallback(
    plans,
    (plan) => {
      for (const warning of plan.warnings) warnings.emit(warning);
      return runAttempt(plan, context, (error, partial) => brokenStreamError(deadline.explain(error), partial));
    },
    {
      retry: options.retry,
      ...signal,
      onFallback(from, to, error) {
        warnings.emit(new ChatWarning("fallback_used", from.model.id, `${from.model.id} failed (${error.code}: ${error.message}); moved to ${to.model.id}.`));
      },
    },
  );
  const requested = options.chain[0]!.id;
  // A prompt too long for the first model's window moved the call on before anything was sent.
  const movedFrom = skipped.some((entry) => entry.model === requested) ? [requested] : [];
  return {
    open: result.value,
    origin: { requestedModel: requested, model: result.plan.model, fallbackFrom: [...movedFrom, ...result.fallbackFrom] },
  };
}
