import pRetry, { AbortError } from "p-retry";
import { ConfigError, RateLimitError, SvcFlowError } from "../errors.js";
import { abortableSleep } from "../gateway/abortable-sleep.js";
import { toAbortedError } from "../gateway/to-aborted-error.js";
import { backoffDelayMs, type Jitter } from "./backoff-delay.js";
import type { RetryBudget } from "./retry-budget.js";

/** When and how long to wait before trying a call again. */
export interface RetryPolicy {
  /** Attempts in total, the first included. Default 4. */
  attempts?: number;
  /** The backoff ceiling of the first retry. Default 250. */
  minDelayMs?: number;
  /** The largest backoff (a longer Retry-After still wins). Default 20_000. */
  maxDelayMs?: number;
  /** Growth of the backoff ceiling per retry. Default 2. */
  factor?: number;
  /** Default "full". */
  jitter?: Jitter;
  /** A Retry-After longer than this ends the retries, so the caller can fall back. Default 30. */
  longRetryAfterS?: number;
  /** Retries of a 429 that made the scheduler send fewer at once (RateLimitError.paced), on top of
   * `attempts`: such a 429 is the key's pace being found, not the call failing. Default 8. */
  limitRetries?: number;
}

/** The defaults of RetryPolicy. */
export const RETRY_DEFAULTS: Readonly<Required<RetryPolicy>> = {
  attempts: 4,
  minDelayMs: 250,
  maxDelayMs: 20_000,
  factor: 2,
  jitter: "full",
  longRetryAfterS: 30,
  limitRetries: 8,
};

/** Per-call companions of a policy. */
export interface RetryOptions {
  signal?: AbortSignal;
  /** Shared with every other layer of the same logical call. */
  budget?: RetryBudget;
  /** Called before each wait, for logs and the run journal. */
  onRetry?: (error: SvcFlowError, attempt: number, delayMs: number) => void;
  /** Waits between attempts. Default: a timer that AbortSignal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for jitter. Default `Math.random`. */
  random?: () => number;
}

/**
 * Runs `task` until it succeeds, retrying errors whose `retryable` is true (429, 5xx, network,
 * timeouts; never insufficient_quota, 400 or 401, which the error factory marks non-retryable).
 * The wait is exponential backoff with jitter, and never shorter than the error's Retry-After.
 */
export async function withRetry<T>(
  task: (attempt: number) => Promise<T>,
  policy: RetryPolicy = {},
  options: RetryOptions = {},
): Promise<T> {
  const resolved = resolvePolicy(policy);
  const { signal, budget } = options;
  try {
    // Most calls succeed at once, and p-retry costs ~9 us a call even then (measured), so the
    // first attempt runs on its own, and p-retry (with its closures) is set up only for retries.
    signal?.throwIfAborted();
    if (budget !== undefined && !budget.tryTake()) throw asError(budget.exhaustedError());
    try {
      return await task(1);
    } catch (error) {
      return await retry(task, resolved, options, error);
    }
  } catch (error) {
    if (signal?.aborted === true && !(error instanceof SvcFlowError)) throw toAbortedError(signal.reason);
    throw error;
  }
}

/** The retries after a failed first attempt: throws `firstError` when it is not to be retried. */
async function retry<T>(
  task: (attempt: number) => Promise<T>,
  resolved: Readonly<Required<RetryPolicy>>,
  options: RetryOptions,
  firstError: unknown,
): Promise<T> {
  const { signal, budget, onRetry } = options;
  const sleep = options.sleep ?? abortableSleep;
  let previousDelayMs: number | undefined;
  let failures = 0;
  let limits = 0;

  const attempt = (number: number): Promise<T> => {
    if (budget !== undefined && !budget.tryTake()) throw new AbortError(asError(budget.exhaustedError()));
    return task(number);
  };
  // Decides after a failed attempt: throws to stop, or waits and returns to go on.
  const afterFailure = async (error: unknown, attemptNumber: number): Promise<void> => {
    budget?.recordFailure(error);
    if (!(error instanceof SvcFlowError) || !error.retryable || signal?.aborted === true) throw error;
    const limited = error instanceof RateLimitError && error.paced && limits < resolved.limitRetries;
    if (limited) limits++;
    else failures++;
    if (failures >= resolved.attempts || (budget !== undefined && budget.remaining <= 0)) throw error;
    if (waitsTooLong(error, resolved)) throw error;

    const backoffMs = backoffDelayMs({
      attempt: attemptNumber,
      minDelayMs: resolved.minDelayMs,
      maxDelayMs: resolved.maxDelayMs,
      factor: resolved.factor,
      jitter: resolved.jitter,
      ...(previousDelayMs === undefined ? {} : { previousDelayMs }),
      ...(options.random === undefined ? {} : { random: options.random }),
    });
    previousDelayMs = backoffMs;
    const delayMs = Math.max(backoffMs, Math.ceil((error.retryAfterS ?? 0) * 1000));
    onRetry?.(error, attemptNumber, delayMs);
    await sleep(delayMs, signal);
  };

  await afterFailure(firstError, 1);
  return await pRetry((number) => attempt(number + 1), {
    // afterFailure decides when to stop; this only bounds the loop.
    retries: resolved.attempts + resolved.limitRetries,
    // p-retry's own wait cannot see Retry-After, so it waits 0 and the wait happens in afterFailure.
    minTimeout: 0,
    ...(signal === undefined ? {} : { signal }),
    onFailedAttempt: ({ error, attemptNumber }) => afterFailure(error, attemptNumber + 1),
  });
}

/** True when an error's Retry-After is longer than `longRetryAfterS`: the retries end at once, so a fallback can take over. */
export function waitsTooLong(error: SvcFlowError, policy: Readonly<Required<RetryPolicy>>): boolean {
  return error.retryAfterS !== undefined && error.retryAfterS > policy.longRetryAfterS;
}

// Policies resolvePolicy returned (frozen), so a caller that resolves once is not checked per call.
const RESOLVED = new WeakSet<RetryPolicy>();

/** Applies defaults and rejects bad values with the option's name. */
export function resolvePolicy(policy: RetryPolicy): Readonly<Required<RetryPolicy>> {
  if (RESOLVED.has(policy)) return policy as Readonly<Required<RetryPolicy>>;
  const resolved = { ...RETRY_DEFAULTS, ...withoutUndefined(policy) };
  if (!Number.isInteger(resolved.attempts) || resolved.attempts < 1) {
    throw new ConfigError(`Expected attempts to be an integer >= 1, got ${resolved.attempts}.`);
  }
  if (!(resolved.minDelayMs >= 0)) throw new ConfigError(`Expected minDelayMs to be >= 0, got ${resolved.minDelayMs}.`);
  if (!(resolved.maxDelayMs >= resolved.minDelayMs)) {
    throw new ConfigError(
      `Expected maxDelayMs to be >= minDelayMs (${resolved.minDelayMs}), got ${resolved.maxDelayMs}.`,
    );
  }
  if (!(resolved.factor >= 1)) throw new ConfigError(`Expected factor to be >= 1, got ${resolved.factor}.`);
  if (!(resolved.longRetryAfterS >= 0))
    throw new ConfigError(`Expected longRetryAfterS to be >= 0, got ${resolved.longRetryAfterS}.`);
  if (!Number.isInteger(resolved.limitRetries) || resolved.limitRetries < 0)
    throw new ConfigError(`Expected limitRetries to be an integer >= 0, got ${resolved.limitRetries}.`);
  if (!["full", "decorrelated", "none"].includes(resolved.jitter)) {
    throw new ConfigError(`Expected jitter to be "full", "decorrelated" or "none", got "${String(resolved.jitter)}".`);
  }
  RESOLVED.add(Object.freeze(resolved));
  return resolved;
}

function withoutUndefined(policy: RetryPolicy): RetryPolicy {
  return Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined)) as RetryPolicy;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
