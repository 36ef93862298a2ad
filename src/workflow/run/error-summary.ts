import { AbortedError, BudgetExceededError, redactSecrets, SvcFlowError } from "../../errors.js";
import type { ErrorSummary } from "./journal-records.js";

/** An error as the journal, events and outputs keep it: a stable code and a message without secrets. */
export function summarizeError(error: unknown): ErrorSummary {
  if (error instanceof SvcFlowError) return { code: error.code, message: redactSecrets(error.message) };
  if (error instanceof Error) return { code: "error", message: redactSecrets(error.message) };
  return { code: "error", message: redactSecrets(String(error)) };
}

/** The budget error behind an error (directly, or as a cause), if it was a budget stop. */
export function budgetStop(error: unknown): BudgetExceededError | undefined {
  for (let current = error, depth = 0; current !== undefined && depth < 8; depth++) {
    if (current instanceof BudgetExceededError) return current;
    if (current instanceof SvcFlowError && current.code === "budget_exceeded") return current as BudgetExceededError;
    current = (current as { cause?: unknown } | null)?.cause;
  }
  return undefined;
}

/** Whether the error means the run was cancelled (its signal aborted). */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return (
    signal.aborted &&
    (error instanceof AbortedError ||
      (error instanceof Error && error.name === "AbortError") ||
      error === signal.reason)
  );
}

/** Marks work that never started because an earlier step failed or the run was halted. */
export class NotStartedError extends Error {
  constructor(readonly key: string) {
    super(`Step ${key} did not start.`);
    this.name = "NotStartedError";
  }
}

/** Marks work that cannot go on until a person answers an approval step; the run ends `waiting`, not failed. */
export class WaitingError extends Error {
  constructor(readonly key: string) {
    super(`Step ${key} is waiting for a decision.`);
    this.name = "WaitingError";
  }
}
