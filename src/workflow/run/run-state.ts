import type { TraceSpan } from "../../chat/trace-span.js";
import type { CostLedger } from "../../cost/cost-ledger.js";
import type { RetryPolicy } from "../../scheduling/retry.js";
import type { ExpressionScope } from "../expression/index.js";
import type { ApprovalRequest, ReusedFrom } from "./journal-records.js";
import type { JournalSink } from "./run-journal.js";
import type { Replay } from "./replay.js";
import type { Limiter } from "./limiter.js";
import type { StepReport } from "./step-report.js";
import type { Workflow } from "../load/load-workflow.js";
import type { StepServices } from "../kinds/step-kind.js";
import type { MusicPolling } from "../kinds/music-kind.js";
import type { WorkflowEvent } from "../workflow-event.js";
import type { ItemTally } from "./item-tally.js";
import type { StepKeys } from "./reuse-step.js";

/** Why the run stops starting new work. */
export type Halt = { readonly reason: "budget" | "interrupted" | "failed"; readonly error: unknown };

/** Everything the engine shares across the steps of one run. */
export interface RunState {
  readonly workflow: Workflow;
  readonly runId: string;
  readonly runDir: string;
  readonly journal: JournalSink;
  readonly replay: Replay;
  readonly ledger: CostLedger;
  /** The run-wide limit on steps that call something (leaf steps). */
  readonly limit: Limiter;
  readonly concurrency: number;
  /** Aborted when the caller aborts the run. */
  readonly signal: AbortSignal;
  readonly music: MusicPolling;
  /** Step reports by step key, fed by the ledger's entries. */
  readonly reports: Map<string, StepReport>;
  emit(event: WorkflowEvent): void;
  /** The clients and helpers a leaf step gets, bound to its key (and its trace span, when traced). */
  services(key: string, report: StepReport, retry: RetryPolicy, trace?: TraceSpan): StepServices;
  /** The span new steps open theirs under (the run's, a map item's), when the run is traced. */
  readonly trace?: TraceSpan;
  /** Approval questions this attempt is waiting on (shared by every view of the state). */
  readonly waiting: ApprovalRequest[];
  /** Item counts of the maps not nested in another map (and of a batch), by key, as they finish. */
  readonly tallies: Map<string, ItemTally>;
  /** How step keys are made, and the finished steps of earlier runs a step may take (`--reuse`). Default: keys only. */
  readonly keys?: StepKeys;
  /** Told when a leaf step instance is over in this attempt (it records no more cost), so the run lets go of what it kept for it. */
  stepEnded?(key: string): void;
  /** Set by the first error that stops the run; no new step or item starts after it. */
  halt?: Halt;
}

/** The names an expression can read at one place: inputs, run, earlier steps, map variables. */
export interface Scope {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly run: Readonly<Record<string, unknown>>;
  /** `steps.<id>` of this list and everything visible from it, with their step keys; written as steps finish. */
  readonly steps: Record<string, StepResult>;
  readonly variables: Readonly<Record<string, unknown>>;
  /** Inside a map item: the key of what the map read, which every step of the item depends on. */
  readonly lineage?: string;
  /** Every step in this scope runs whatever its key (`reuse: false` or `rerun --from` on a container). */
  readonly forced?: boolean;
}

/** A finished (or skipped) step as later steps see it: its output, and its step key (step-key.ts). */
export interface StepResult {
  output: unknown;
  key?: string;
  /** Set when the result was taken from an earlier run. */
  reused?: ReusedFrom;
}

/** The scope as the expression evaluator takes it. */
export function expressionScope(scope: Scope): ExpressionScope {
  // inputs, run and steps win over a map variable of the same name.
  return { ...scope.variables, inputs: scope.inputs, run: scope.run, steps: scope.steps };
}
