import { AbortedError, TimeoutError } from "../errors.js";

/** One call's cancellation: the caller's signal and the overall `timeoutMs`, merged. */
export interface CallDeadline {
  readonly signal?: AbortSignal;
  /** The error to throw instead: a TimeoutError when the deadline (not the caller) aborted. */
  explain(error: unknown): unknown;
}

/** Merges the caller's signal with a timer of `timeoutMs` (when set). */
export function callDeadline(model: string, callerSignal?: AbortSignal, timeoutMs?: number): CallDeadline {
  if (timeoutMs === undefined)
    return callerSignal === undefined ? UNLIMITED : { signal: callerSignal, explain: unchanged };
  const timer = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal === undefined ? timer : AbortSignal.any([callerSignal, timer]);
  return {
    signal,
    explain(error) {
      if (!timer.aborted || callerSignal?.aborted === true || !(error instanceof AbortedError || isDomAbort(error)))
        return error;
      return new TimeoutError(
        `The call to ${model} did not finish within timeoutMs (${timeoutMs} ms), retries and fallbacks included. ` +
          "Raise timeoutMs, or lower maxTokens.",
        { cause: error },
      );
    },
  };
}

const unchanged = (error: unknown): unknown => error;
const UNLIMITED: CallDeadline = { explain: unchanged };

function isDomAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}
