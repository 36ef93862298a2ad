import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { systemClock, type Clock } from "./clock.js";
import type { CronSchedule } from "./cron-schedule.js";
import { ScheduleState } from "./schedule-state.js";
import type { SchedulerEvent } from "./scheduler-event.js";
import type { RunOutcome, WorkflowRunner } from "./workflow-runner.js";

/** What happens to a firing while the previous run of the same workflow is in flight. */
export const OVERLAP_POLICIES = ["skip", "queue-one", "allow"] as const;
/** An overlap policy. */
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** Missed firings run at most this many per workflow on `catchUp`; older ones are reported only. */
export const MAX_CATCH_UP = 100;

/** A workflow and when it fires. */
export interface ScheduledJob {
  /** Unique among the jobs; keys the state file and names run directories. */
  readonly name: string;
  /** The workflow file, absolute. */
  readonly file: string;
  readonly schedule: CronSchedule;
  readonly overlap: OverlapPolicy;
  /** On start, run the firings missed while stopped (at most MAX_CATCH_UP, through the overlap policy). */
  readonly catchUp: boolean;
}

/** Options of `runScheduler`. */
export interface SchedulerOptions {
  /** Runs each firing: locally, or (later) by enqueueing it. */
  readonly runner: WorkflowRunner;
  /** Where run directories and the state file go. */
  readonly runsDir: string;
  /** Stops firing; runs in flight get it too and stop resumably. */
  readonly signal: AbortSignal;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Catch up every job's missed firings, whatever its `catchUp`. Default false. */
  readonly catchUp?: boolean;
  readonly onEvent?: (event: SchedulerEvent) => void;
}

/** Counts of what the scheduler did, returned when it stops. */
export interface SchedulerSummary {
  readonly started: number;
  readonly skipped: number;
  readonly failed: number;
}

interface JobState {
  running: number;
  queued: number | undefined;
  cancelTimer: (() => void) | undefined;
}

/**
 * Fires each job on its cron until `signal` aborts: every firing is a normal run in its own run
 * directory, the overlap policy decides what happens while a run is in flight, and the last
 * firing time of each job is saved so a restart skips (or, with catchUp, runs) what it missed.
 * On abort: stop firing, drop queued firings, wait for runs in flight to stop, then resolve.
 */
export async function runScheduler(
  jobs: readonly ScheduledJob[],
  options: SchedulerOptions,
): Promise<SchedulerSummary> {
  const clock = options.clock ?? systemClock;
  const { signal, runner } = options;
  const emit = (event: SchedulerEvent) => options.onEvent?.(event);
  const state = await ScheduleState.load(options.runsDir);
  const states = new Map<string, JobState>(
    jobs.map((job) => [job.name, { running: 0, queued: undefined, cancelTimer: undefined }]),
  );
  const inFlight = new Set<Promise<void>>();
  const counts = { started: 0, skipped: 0, failed: 0 };

  const start = (job: ScheduledJob, jobState: JobState, scheduledAtMs: number) => {
    jobState.running++;
    const task: Promise<void> = execute(job, scheduledAtMs).then((outcome) => {
      inFlight.delete(task);
      jobState.running--;
      if (outcome.state === "failed") counts.failed++;
      // Reported once the job is no longer running, so a listener sees the overlap state it implies.
      emit({ type: "finished", name: job.name, scheduledAtMs, outcome });
      if (jobState.queued !== undefined && jobState.running === 0 && !signal.aborted) {
        const next = jobState.queued;
        jobState.queued = undefined;
        start(job, jobState, next);
      }
    });
    inFlight.add(task);
  };

  // Never rejects: whatever goes wrong in a run is its outcome.
  const execute = async (job: ScheduledJob, scheduledAtMs: number): Promise<RunOutcome> => {
    let runDir = "";
    if (signal.aborted) return { state: "stopped", runDir };
    try {
      runDir = await claimRunDir(options.runsDir, job.name, scheduledAtMs);
      counts.started++;
      emit({ type: "started", name: job.name, scheduledAtMs, runDir });
      return await runner.run({ name: job.name, file: job.file, scheduledAtMs, runDir }, { signal });
    } catch (error) {
      return { state: "failed", runDir, error };
    }
  };

  const fire = (job: ScheduledJob, scheduledAtMs: number) => {
    const jobState = states.get(job.name)!;
    state.record(job.name, scheduledAtMs);
    if (jobState.running > 0 && job.overlap !== "allow") {
      if (job.overlap === "queue-one" && jobState.queued === undefined) {
        jobState.queued = scheduledAtMs;
        emit({ type: "queued", name: job.name, scheduledAtMs });
      } else {
        counts.skipped++;
        emit({
          type: "skipped",
          name: job.name,
          scheduledAtMs,
          reason: job.overlap === "skip" ? "running" : "queue-full",
        });
      }
      return;
    }
    start(job, jobState, scheduledAtMs);
  };

  const arm = (job: ScheduledJob, afterMs: number) => {
    const atMs = job.schedule.next(afterMs);
    if (atMs === undefined || signal.aborted) return;
    emit({ type: "next", name: job.name, atMs });
    const wake = () => {
      if (signal.aborted) return;
      const nowMs = clock.now();
      // Timers may wake early (clamped long delays, coarse clocks): wait out the rest.
      if (nowMs < atMs) {
        states.get(job.name)!.cancelTimer = clock.setTimer(wake, atMs - nowMs);
        return;
      }
      fire(job, atMs);
      // Firings that passed while the process was blocked or asleep are missed, not run late.
      const late = job.schedule.between(atMs, nowMs, MAX_CATCH_UP);
      if (late.times.length > 0) {
        state.record(job.name, late.times.at(-1)!);
        emit({ type: "missed", name: job.name, count: late.times.length, more: late.more, catchUp: false });
      }
      arm(job, Math.max(atMs, nowMs));
    };
    states.get(job.name)!.cancelTimer = clock.setTimer(wake, atMs - clock.now());
  };

  const startedAtMs = clock.now();
  for (const job of jobs) {
    const lastMs = state.lastScheduledAt(job.name);
    if (lastMs !== undefined) {
      const catchUp = options.catchUp === true || job.catchUp;
      const missed = job.schedule.between(lastMs, startedAtMs, MAX_CATCH_UP);
      if (missed.times.length > 0) {
        emit({ type: "missed", name: job.name, count: missed.times.length, more: missed.more, catchUp });
        if (catchUp && !signal.aborted) for (const time of missed.times) fire(job, time);
        else state.record(job.name, missed.times.at(-1)!);
      }
    }
    arm(job, startedAtMs);
  }

  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  for (const [name, jobState] of states) {
    jobState.cancelTimer?.();
    if (jobState.queued !== undefined) emit({ type: "dropped", name, scheduledAtMs: jobState.queued });
    jobState.queued = undefined;
  }
  emit({ type: "stopping", inFlight: inFlight.size });
  while (inFlight.size > 0) await Promise.all(inFlight);
  await state.flush();
  return counts;
}

/** Makes `<runsDir>/<UTC time>-<name>` for a firing, named like `svc-flow run`'s, adding -2, -3... if it exists. */
async function claimRunDir(runsDir: string, name: string, scheduledAtMs: number): Promise<string> {
  const stamp = new Date(scheduledAtMs)
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace(/[-:]/g, "")
    .replace("T", "-");
  const base = join(runsDir, `${stamp}-${name}`);
  for (let attempt = 1; ; attempt++) {
    const dir = attempt === 1 ? base : `${base}-${attempt}`;
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
