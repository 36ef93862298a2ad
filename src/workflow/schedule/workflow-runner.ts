/** One firing of a scheduled workflow, as handed to a runner. Plain data, so a queue can carry it. */
export interface RunRequest {
  /** The workflow's name (unique among the scheduled files). */
  readonly name: string;
  /** The workflow file, absolute. */
  readonly file: string;
  /** The cron time this firing is for (epoch ms); later than now when it waited in a queue. */
  readonly scheduledAtMs: number;
  /** The run directory to write; the scheduler made it, empty. */
  readonly runDir: string;
}

/** How one run ended. `enqueued`: handed to another worker, which owns it from then on; `waiting`: for `svc-flow approve`. */
export interface RunOutcome {
  readonly state: "done" | "failed" | "stopped" | "waiting" | "enqueued";
  readonly runDir: string;
  /** Spent on this run, when known. */
  readonly costYuan?: number;
  /** What went wrong, for `failed` (and `stopped`, when a budget stopped it). */
  readonly error?: unknown;
}

/**
 * Runs a scheduled firing. The local runner runs the workflow in this process; a queue-backed
 * runner (BullMQ/Redis, later) would enqueue the request and resolve `enqueued` at once. The
 * scheduler applies its overlap policy to firings whose promise has not settled.
 */
export interface WorkflowRunner {
  /** Runs or hands off one firing. On `signal` it should stop resumably and resolve `stopped`. */
  run(request: RunRequest, options: { signal: AbortSignal }): Promise<RunOutcome>;
}
