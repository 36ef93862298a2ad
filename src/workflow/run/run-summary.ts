import type { CostEntry } from "../../cost/cost-entry.js";
import type { CostSummary } from "../../cost/summarize-entries.js";
import type { Workflow } from "../load/load-workflow.js";
import type { RunStatus } from "../workflow-event.js";
import type { ErrorSummary, JournalRecord } from "./journal-records.js";

/** Everything known about a run when it ends: what the report (report.html) is made from. */
export interface RunSummary {
  readonly runDir: string;
  readonly runId: string;
  readonly workflow: Workflow;
  readonly status: RunStatus;
  /** Why a stopped run stopped. */
  readonly reason?: "budget" | "interrupted";
  readonly error?: ErrorSummary;
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The rendered `outputs:` (done runs only). */
  readonly outputs?: Readonly<Record<string, unknown>>;
  /** The ledger's totals; for a batch, byTag.step leaves out the rows past the report's first page (cost.json has them). */
  readonly cost: CostSummary;
  readonly entries: readonly CostEntry[];
  /** A batch's row yuan that `cost.byTag.step` leaves out, by row index (undefined: no priced call). */
  readonly rowYuan?: (index: number) => number | undefined;
  /**
   * The journal's records as the run kept them, every attempt included (steps, items, music jobs,
   * approvals), without its cost lines (`entries` has them) and, for a batch, without the step
   * records of rows past the report's first page that name no media.
   */
  readonly journal: readonly JournalRecord[];
  readonly startedAt: string;
  readonly finishedAt: string;
  /** Added to the report's `svc-flow approve` commands: a distributed run's `--redis URL`. Default: none. */
  readonly approveFlags?: string;
}

/**
 * Called once at the end of every run attempt (done, stopped or failed), after journal.jsonl,
 * outputs.json and cost.json are written. The report writer (report.html) plugs in here.
 */
export type RunReportWriter = (summary: RunSummary) => Promise<void>;
