import type { RunOutcome } from "./workflow-runner.js";

/** Something the scheduler did, for logs and tests. Times are epoch ms. */
export type SchedulerEvent =
  /** The next firing of a workflow is due at `atMs`. */
  | { readonly type: "next"; readonly name: string; readonly atMs: number }
  /** Firings that came and went while the scheduler was not running (or was blocked). */
  | {
      readonly type: "missed";
      readonly name: string;
      readonly count: number;
      readonly more: boolean;
      readonly catchUp: boolean;
    }
  /** A run began, in its own run directory. */
  | { readonly type: "started"; readonly name: string; readonly scheduledAtMs: number; readonly runDir: string }
  /** A firing came while a run was in flight and the overlap policy dropped it. */
  | {
      readonly type: "skipped";
      readonly name: string;
      readonly scheduledAtMs: number;
      readonly reason: "running" | "queue-full";
    }
  /** A firing came while a run was in flight and waits for it (queue-one). */
  | { readonly type: "queued"; readonly name: string; readonly scheduledAtMs: number }
  /** A queued firing was dropped because the scheduler is stopping. */
  | { readonly type: "dropped"; readonly name: string; readonly scheduledAtMs: number }
  /** A run ended (or was handed to a queue). */
  | { readonly type: "finished"; readonly name: string; readonly scheduledAtMs: number; readonly outcome: RunOutcome }
  /** The scheduler stopped firing and waits for the runs in flight to stop. */
  | { readonly type: "stopping"; readonly inFlight: number };
