import type { ErrorSummary } from "./run/journal-records.js";

/** How a run ended: done; stopped by its budget (resumable); failed (resumable after a fix); waiting for a person (`svc-flow approve`). */
export type RunStatus = "done" | "stopped" | "failed" | "waiting";

/** Progress of a run, for a live display or a log; `key` names a step instance (`posters[2].poster`). */
export type WorkflowEvent =
  | {
      readonly type: "run-started";
      readonly runId: string;
      readonly runDir: string;
      readonly resumed: boolean;
      readonly steps: number;
    }
  | { readonly type: "step-started"; readonly key: string; readonly id: string; readonly kind: string }
  | {
      readonly type: "step-finished";
      readonly key: string;
      readonly id: string;
      readonly kind: string;
      readonly durationMs: number;
      readonly costYuan: number;
      /** True when the output came from the journal (a resumed run). */
      readonly replayed: boolean;
      /** Set when the result was taken from an earlier run (`--reuse`, `rerun`) at no cost. */
      readonly reused?: { readonly runDir: string };
    }
  | { readonly type: "step-skipped"; readonly key: string; readonly id: string; readonly replayed: boolean }
  | { readonly type: "step-failed"; readonly key: string; readonly id: string; readonly error: ErrorSummary }
  /** An approval step asked its question; the steps after it wait for `svc-flow approve`. */
  | { readonly type: "step-waiting"; readonly key: string; readonly id: string; readonly prompt: string }
  /** A call of the step failed and is tried again after `delayMs` (chat calls say how long, and the model). */
  | {
      readonly type: "step-retry";
      readonly key: string;
      readonly id: string;
      readonly attempt: number;
      readonly errorCode: string;
      readonly delayMs?: number;
      readonly model?: string;
    }
  | { readonly type: "step-fallback"; readonly key: string; readonly id: string; readonly message: string }
  | {
      readonly type: "map-progress";
      readonly key: string;
      readonly id: string;
      readonly done: number;
      readonly failed: number;
      readonly total: number;
    }
  | {
      readonly type: "cost";
      readonly spentYuan: number;
      readonly heldYuan: number;
      readonly maxYuan?: number;
      readonly unpriced: number;
    }
  | { readonly type: "warning"; readonly key?: string; readonly message: string }
  | {
      readonly type: "run-finished";
      readonly status: RunStatus;
      readonly runDir: string;
      readonly error?: ErrorSummary;
    };
