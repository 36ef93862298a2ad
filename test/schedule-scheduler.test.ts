import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { systemClock, type Clock } from "../src/workflow/schedule/clock.js";
import { CronSchedule } from "../src/workflow/schedule/cron-schedule.js";
import {
  runScheduler,
  type OverlapPolicy,
  type ScheduledJob,
  type SchedulerOptions,
} from "../src/workflow/schedule/run-scheduler.js";
import type { SchedulerEvent } from "../src/workflow/schedule/scheduler-event.js";
import type { RunOutcome, RunRequest, WorkflowRunner } from "../src/workflow/schedule/workflow-runner.js";

const T0 = Date.parse("2026-01-01T00:00:00.500Z");
const second = (n: number) => Date.parse("2026-01-01T00:00:00.000Z") + n * 1000;

/** A clock the test moves by hand: timers fire in time order as it advances. */
class FakeClock implements Clock {
  #now: number;
  #timers: { atMs: number; callback: () => void }[] = [];

  constructor(startMs: number) {
    this.#now = startMs;
  }
  now(): number {
    return this.#now;
  }
  setTimer(callback: () => void, delayMs: number): () => void {
    const timer = { atMs: this.#now + Math.max(0, delayMs), callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((candidate) => candidate !== timer);
    };
  }
  /** Moves time forward, firing each due timer at its own time. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((timer) => timer.atMs <= target).sort((a, b) => a.atMs - b.atMs)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#now = due.atMs;
      due.callback();
    }
    this.#now = target;
  }
}

/** Runs that last until the test ends them, or until the signal stops them. */
class HeldRunner implements WorkflowRunner {
  readonly requests: RunRequest[] = [];
  readonly aborted: RunRequest[] = [];
  readonly #release = new Map<number, (outcome: RunOutcome) => void>();

  run(request: RunRequest, { signal }: { signal: AbortSignal }): Promise<RunOutcome> {
    this.requests.push(request);
    return new Promise((resolve) => {
      this.#release.set(request.scheduledAtMs, resolve);
      const stop = () => {
        this.aborted.push(request);
        // Like a real run: finish the unit of work in hand, journal it, then stop.
        setTimeout(() => resolve({ state: "stopped", runDir: request.runDir }), 20);
      };
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
  }
  finish(scheduledAtMs: number): void {
    const request = this.requests.find((candidate) => candidate.scheduledAtMs === scheduledAtMs)!;
    this.#release.get(scheduledAtMs)!({ state: "done", runDir: request.runDir, costYuan: 0.5 });
  }
}

/** Scheduler events, with a way to wait for one. */
class EventLog {
  readonly events: SchedulerEvent[] = [];
  #waiters: { test: (event: SchedulerEvent) => boolean; resolve: () => void }[] = [];

  readonly push = (event: SchedulerEvent) => {
    this.events.push(event);
    this.#waiters = this.#waiters.filter((waiter) => (waiter.test(event) ? (waiter.resolve(), false) : true));
  };
  until(type: SchedulerEvent["type"], scheduledAtMs?: number): Promise<void> {
    const test = (event: SchedulerEvent) =>
      event.type === type &&
      (scheduledAtMs === undefined || ("scheduledAtMs" in event && event.scheduledAtMs === scheduledAtMs));
    if (this.events.some(test)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }
  times(type: SchedulerEvent["type"]): number[] {
    return this.events.flatMap((event) =>
      event.type === type && "scheduledAtMs" in event ? [event.scheduledAtMs] : [],
    );
  }
  of<T extends SchedulerEvent["type"]>(type: T): Extract<SchedulerEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<SchedulerEvent, { type: T }> => event.type === type);
  }
}

let runsDir: string;
beforeEach(async () => {
  runsDir = await mkdtemp(join(tmpdir(), "svc-flow-schedule-"));
});
afterEach(async () => {
  await rm(runsDir, { recursive: true, force: true });
});

function job(overlap: OverlapPolicy, options: { catchUp?: boolean; cron?: string } = {}): ScheduledJob {
  return {
    name: "digest",
    file: "/workflows/digest.yaml",
    schedule: new CronSchedule(options.cron ?? "* * * * * *", "UTC", "digest.yaml"),
    overlap,
    catchUp: options.catchUp ?? false,
  };
}

function start(
  jobs: ScheduledJob[],
  options: Partial<SchedulerOptions> & { clock: Clock; runner: WorkflowRunner; log: EventLog },
) {
  const controller = new AbortController();
  const done = runScheduler(jobs, { runsDir, signal: controller.signal, onEvent: options.log.push, ...options });
  return { controller, done };
}

describe("runScheduler overlap policies", () => {
  it("skip: a firing while the previous run is in flight is skipped and logged", async () => {
    const clock = new FakeClock(T0);
    const runner = new HeldRunner();
    const log = new EventLog();
    const { controller, done } = start([job("skip")], { clock, runner, log });
    await log.until("next");
    clock.advance(1000);
    await log.until("started", second(1));
    clock.advance(2000);
    expect(log.of("skipped").map((event) => [event.scheduledAtMs, event.reason])).toEqual([
      [second(2), "running"],
      [second(3), "running"],
    ]);
    runner.finish(second(1));
    await log.until("finished", second(1));
    clock.advance(1000);
    await log.until("started", second(4));
    runner.finish(second(4));
    await log.until("finished", second(4));
    controller.abort();
    expect(await done).toEqual({ started: 2, skipped: 2, failed: 0 });
    expect(log.times("started")).toEqual([second(1), second(4)]);
  });

  it("queue-one: one firing waits for the run in flight, a further one is skipped", async () => {
    const clock = new FakeClock(T0);
    const runner = new HeldRunner();
    const log = new EventLog();
    const { controller, done } = start([job("queue-one")], { clock, runner, log });
    await log.until("next");
    clock.advance(1000);
    await log.until("started", second(1));
    clock.advance(2000);
    expect(log.times("queued")).toEqual([second(2)]);
    expect(log.of("skipped").map((event) => [event.scheduledAtMs, event.reason])).toEqual([[second(3), "queue-full"]]);
    runner.finish(second(1));
    // The queued firing starts as soon as the first run ends, still carrying its own cron time.
    await log.until("started", second(2));
    expect(runner.requests.map((request) => request.scheduledAtMs)).toEqual([second(1), second(2)]);
    runner.finish(second(2));
    await log.until("finished", second(2));
    controller.abort();
    expect(await done).toEqual({ started: 2, skipped: 1, failed: 0 });
  });

  it("allow: firings start side by side, each in its own run directory", async () => {
    const clock = new FakeClock(T0);
    const runner = new HeldRunner();
    const log = new EventLog();
    const { controller, done } = start([job("allow")], { clock, runner, log });
    await log.until("next");
    clock.advance(3000);
    // Run directories are made concurrently, so the runs may begin in any order.
    await Promise.all([1, 2, 3].map((n) => log.until("started", second(n))));
    expect(log.times("started").sort()).toEqual([second(1), second(2), second(3)]);
    const dirs = runner.requests.map((request) => request.runDir).sort();
    expect(new Set(dirs).size).toBe(3);
    expect(dirs.map((dir) => basename(dir))).toEqual([
      "20260101-000001-digest",
      "20260101-000002-digest",
      "20260101-000003-digest",
    ]);
    expect((await readdir(runsDir)).filter((name) => !name.startsWith("."))).toHaveLength(3);
    for (const request of runner.requests) runner.finish(request.scheduledAtMs);
    await log.until("finished", second(3));
    controller.abort();
    expect(await done).toEqual({ started: 3, skipped: 0, failed: 0 });
  });
});

describe("runScheduler stopping", () => {
  it("on abort stops firing, drops the queued firing, and waits for runs in flight to stop", async () => {
    const clock = new FakeClock(T0);
    const runner = new HeldRunner();
    const log = new EventLog();
    const { controller, done } = start([job("queue-one")], { clock, runner, log });
    await log.until("next");
    clock.advance(2000);
    await log.until("started", second(1));
    controller.abort();
    let resolved = false;
    void done.then(() => (resolved = true));
    await log.until("stopping");
    expect(resolved).toBe(false);
    clock.advance(5000);
    expect(await done).toEqual({ started: 1, skipped: 0, failed: 0 });
    expect(runner.aborted.map((request) => request.scheduledAtMs)).toEqual([second(1)]);
    expect(log.times("dropped")).toEqual([second(2)]);
    expect(log.of("finished").map((event) => event.outcome.state)).toEqual(["stopped"]);
    expect(log.times("started")).toEqual([second(1)]);
  });

  it("reports a run that throws as failed and keeps firing", async () => {
    const clock = new FakeClock(T0);
    const log = new EventLog();
    const runner: WorkflowRunner = { run: () => Promise.reject(new Error("boom")) };
    const { controller, done } = start([job("skip")], { clock, runner, log });
    await log.until("next");
    clock.advance(1000);
    await log.until("finished", second(1));
    clock.advance(1000);
    await log.until("finished", second(2));
    controller.abort();
    expect(await done).toEqual({ started: 2, skipped: 0, failed: 2 });
    expect(log.of("finished")[0]!.outcome).toMatchObject({ state: "failed", error: new Error("boom") });
  });
});

describe("runScheduler restarts", () => {
  async function runOnce(
    clock: FakeClock,
    overlap: OverlapPolicy,
    options: Partial<SchedulerOptions> & { catchUp?: boolean } = {},
  ) {
    const runner = new HeldRunner();
    const log = new EventLog();
    const { controller, done } = start([job(overlap)], { clock, runner, log, ...options });
    await log.until("next");
    return { runner, log, controller, done };
  }

  it("saves the last firing and does not run the firings missed while stopped", async () => {
    const clock = new FakeClock(T0);
    const first = await runOnce(clock, "skip");
    clock.advance(2000);
    await first.log.until("skipped", second(2));
    first.controller.abort();
    await first.done;
    const saved = JSON.parse(await readFile(join(runsDir, ".schedule-state.json"), "utf8")) as {
      jobs: Record<string, { lastScheduledAt: string }>;
    };
    expect(saved.jobs.digest!.lastScheduledAt).toBe(new Date(second(2)).toISOString());

    clock.advance(10_000); // down for ten seconds: firings 3..12 are missed
    const second_ = await runOnce(clock, "allow");
    expect(second_.log.of("missed")).toEqual([
      { type: "missed", name: "digest", count: 10, more: false, catchUp: false },
    ]);
    expect(second_.runner.requests).toHaveLength(0);
    clock.advance(1000);
    await second_.log.until("started", second(13));
    expect(second_.runner.requests.map((request) => request.scheduledAtMs)).toEqual([second(13)]);
    second_.controller.abort();
    await second_.done;
  });

  it("with catchUp runs the missed firings through the overlap policy", async () => {
    const clock = new FakeClock(T0);
    const first = await runOnce(clock, "skip");
    clock.advance(1000);
    await first.log.until("started", second(1));
    first.runner.finish(second(1));
    first.controller.abort();
    await first.done;

    clock.advance(3000); // firings 2, 3, 4 missed
    const catchingUp = await runOnce(clock, "queue-one", { catchUp: true });
    await catchingUp.log.until("started", second(2));
    expect(catchingUp.log.of("missed")[0]).toMatchObject({ count: 3, catchUp: true });
    expect(catchingUp.log.times("queued")).toEqual([second(3)]);
    expect(catchingUp.log.times("skipped")).toEqual([second(4)]);
    catchingUp.runner.finish(second(2));
    await catchingUp.log.until("started", second(3));
    catchingUp.controller.abort();
    await catchingUp.done;
  });

  it("on a first start there is nothing missed", async () => {
    const clock = new FakeClock(T0);
    const first = await runOnce(clock, "skip", { catchUp: true });
    expect(first.log.of("missed")).toEqual([]);
    expect(first.runner.requests).toEqual([]);
    first.controller.abort();
    await first.done;
  });
});

describe("runScheduler with the system clock", () => {
  it("fires an every-second cron in real time and stops cleanly", async () => {
    const runner: WorkflowRunner = { run: async (request) => ({ state: "done", runDir: request.runDir }) };
    const log = new EventLog();
    const { controller, done } = start([job("skip")], { clock: systemClock, runner, log });
    while (log.times("finished").length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const summary = await done;
    expect(summary.started).toBeGreaterThanOrEqual(2);
    expect(summary.failed).toBe(0);
    const [first, next] = log.times("finished");
    expect(first! % 1000).toBe(0);
    expect(next! - first!).toBeGreaterThanOrEqual(1000);
    expect((next! - first!) % 1000).toBe(0);
  });
});
