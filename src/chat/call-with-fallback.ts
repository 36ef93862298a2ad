import {
  AbortedError,
  BudgetExceededError,
  ContextWindowError,
  EmptyOutputError,
  SvcFlowError,
  UnknownModelError,
} from "../errors.js";
import { withRetry, type RetryPolicy } from "../scheduling/retry.js";
import type { RequestPlan } from "./plan-request.js";

/** How a call retries each model and moves along its fallback chain. */
export interface FallbackOptions {
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
  /** Called before each retry of the same model. */
  readonly onRetry?: (plan: RequestPlan, error: SvcFlowError, attempt: number, delayMs: number) => void;
  /** Called when the call moves from one model to the next. */
  readonly onFallback?: (from: RequestPlan, to: RequestPlan, error: SvcFlowError) => void;
}

/** The result of a call, with the plan that produced it and the models tried before. */
export interface FallbackResult<T> {
  readonly value: T;
  readonly plan: RequestPlan;
  readonly fallbackFrom: string[];
}

/** True when another model may succeed where this one failed: an upstream failure after retries,
 * a long Retry-After, a cut or timed-out stream, empty output, or a model the key may not call.
 * Never for the caller's own problems (bad request, key, quota, budget, abort). */
export function canFallBack(error: unknown): error is SvcFlowError {
  if (!(error instanceof SvcFlowError)) return false;
  if (error instanceof AbortedError || error instanceof BudgetExceededError) return false;
  if (error instanceof EmptyOutputError || error instanceof UnknownModelError || error instanceof ContextWindowError)
    return true;
  return error.retryable;
}

/** Runs `attempt` on each plan in turn, with retries per plan, until one succeeds. */
export async function callWithFallback<T>(
  plans: readonly RequestPlan[],
  attempt: (plan: RequestPlan) => Promise<T>,
  options: FallbackOptions,
): Promise<FallbackResult<T>> {
  const fallbackFrom: string[] = [];
  for (let position = 0; position < plans.length; position++) {
    const plan = plans[position]!;
    try {
      const value = await withRetry(() => attempt(plan), options.retry, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onRetry: (error, number, delayMs) => options.onRetry?.(plan, error, number, delayMs),
      });
      return { value, plan, fallbackFrom };
    } catch (error) {
      const next = plans[position + 1];
      if (next === undefined || options.signal?.aborted === true || !canFallBack(error)) throw error;
      options.onFallback?.(plan, next, error);
      fallbackFrom.push(plan.model.id);
    }
  }
  throw new SvcFlowError("no_model", "No model to send the request to.");
}
