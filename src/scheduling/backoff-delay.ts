/** How the delay before each retry is drawn. */
export type Jitter = "full" | "decorrelated" | "none";

/** The inputs of one backoff delay. */
export interface BackoffInput {
  /** 1 for the wait after the first failed attempt. */
  readonly attempt: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  readonly jitter: Jitter;
  /** The delay drawn before this one (decorrelated jitter grows from it). */
  readonly previousDelayMs?: number;
  /** A number in [0, 1); `Math.random` by default. */
  readonly random?: () => number;
}

/**
 * The backoff before a retry, without Retry-After: exponential, capped at `maxDelayMs`, with
 * "full" jitter (uniform in [0, cap]) or "decorrelated" jitter (uniform in [min, 3 x previous]),
 * so clients that failed together do not retry together.
 */
export function backoffDelayMs(input: BackoffInput): number {
  const random = input.random ?? Math.random;
  const ceiling = Math.min(input.maxDelayMs, input.minDelayMs * input.factor ** Math.max(0, input.attempt - 1));
  if (input.jitter === "none") return Math.round(ceiling);
  if (input.jitter === "full") return Math.round(random() * ceiling);
  const previous = input.previousDelayMs ?? input.minDelayMs;
  const upper = Math.max(input.minDelayMs, previous * 3);
  return Math.round(Math.min(input.maxDelayMs, input.minDelayMs + random() * (upper - input.minDelayMs)));
}
