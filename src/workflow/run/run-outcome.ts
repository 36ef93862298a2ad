import type { ItemTally } from "./item-tally.js";
import type { RunResult } from "./run-options.js";

/** How a run ended, in the words every view (CLI, report, live view) uses, and the exit code it maps to. */
export interface RunOutcome {
  /** `done`: everything succeeded; `done-with-failures`: some items failed (collected); `no-item-succeeded`: a map or batch where every item failed. */
  readonly kind: "done" | "done-with-failures" | "no-item-succeeded" | "stopped" | "failed" | "waiting";
  /** One line for a person, e.g. "Done", "0 of 12 items succeeded (lines)". */
  readonly headline: string;
  /** 0 done, 1 the work failed or stopped (resumable), 2 bad input or key (nothing to retry as is), 3 waiting for a person. */
  readonly exitCode: 0 | 1 | 2 | 3;
}

// A key the gateway refuses, or a model it may not call, is the caller's to fix, whenever it shows.
const INPUT_ERROR_CODES: ReadonlySet<string> = new Set([
  "invalid_api_key",
  "invalid_api_key_format",
  "missing_api_key",
  "model_not_found",
  "invalid_base_url",
]);

/** The run's outcome: a done run whose every item of some map failed is not "Done". */
export function runOutcome(result: Pick<RunResult, "status" | "reason" | "error" | "items">): RunOutcome {
  if (result.status === "waiting") return { kind: "waiting", headline: "Waiting for a decision", exitCode: 3 };
  if (result.status === "stopped") {
    return { kind: "stopped", headline: result.reason === "budget" ? "Stopped by the budget" : "Stopped", exitCode: 1 };
  }
  if (result.status === "failed") {
    return { kind: "failed", headline: "Failed", exitCode: INPUT_ERROR_CODES.has(result.error?.code ?? "") ? 2 : 1 };
  }
  const tallies = result.items ?? [];
  const empty = tallies.filter((tally) => tally.total > 0 && tally.succeeded === 0);
  if (empty.length > 0)
    return { kind: "no-item-succeeded", headline: empty.map(describeTally).join("; "), exitCode: 1 };
  const partial = tallies.filter((tally) => tally.failed > 0);
  if (partial.length > 0)
    return {
      kind: "done-with-failures",
      headline: `Done, with failed items: ${partial.map(describeTally).join("; ")}`,
      exitCode: 0,
    };
  return { kind: "done", headline: "Done", exitCode: 0 };
}

/** "3 of 12 items succeeded (lines)". */
export function describeTally(tally: ItemTally): string {
  return `${tally.succeeded} of ${tally.total} items succeeded (${tally.key})`;
}
