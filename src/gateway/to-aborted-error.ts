import { AbortedError, type SvcFlowError } from "../errors.js";

/** Turns an AbortSignal's reason into AbortedError, keeping the reason as its cause. */
export function toAbortedError(reason: unknown): SvcFlowError {
  if (reason instanceof AbortedError) return reason;
  const said = reason instanceof Error && reason.name !== "AbortError" ? `: ${reason.message}` : "";
  return new AbortedError(`The operation was aborted${said}.`, { cause: reason });
}
