import { afterEach, describe, expect, it, vi } from "vitest";
import { AbortedError, ConfigError } from "../src/errors.js";
import { Scheduler, type Slot } from "../src/scheduling/scheduler.js";

/** Resolves after pending promise callbacks ran. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Tracks whether a promise has settled yet. */
function track<T>(promise: Promise<T>): { readonly done: boolean; readonly promise: Promise<T> } {
  const state = { done: false, promise };
  promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}

describe("Scheduler", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("admits at most `concurrency` requests of a key at once", async () => {
    const scheduler = new Scheduler({ concurrency: 2 });
    const first = await scheduler.acquire("a");
    await scheduler.acquire("b");
    const third = track(scheduler.acquire("c"));
    await settle();
    expect(third.done).toBe(false);
    first.release();
    await settle();
    expect(third.done).toBe(true);
  });

  it("limits a model's lane without blocking other models", async () => {
    const scheduler = new Scheduler({ concurrency: 10, models: { "beta-5": { concurrency: 1 } } });
    const held = await scheduler.acquire("beta-5");
    const sameModel = track(scheduler.acquire("beta-5"));
    const otherModel = track(scheduler.acquire("beta-4o"));
    await settle();
    expect(sameModel.done).toBe(false);
    expect(otherModel.done).toBe(true);
    held.release();
    await settle();
    expect(sameModel.done).toBe(true);
  });

  it("applies modelDefaults to models without their own limits", async () => {
    const scheduler = new Scheduler({ modelDefaults: { concurrency: 1 } });
    await scheduler.acquire("x");
    const second = track(scheduler.acquire("x"));
    await settle();
    expect(second.done).toBe(false);
  });

  it("frees one place however often a slot is released", async () => {
    const scheduler = new Scheduler({ concurrency: 1 });
    const slot = await scheduler.acquire("a");
    const waiters = [track(scheduler.acquire("a")), track(scheduler.acquire("a"))];
    slot.release();
    slot.release();
    await settle();
    expect(waiters.map((waiter) => waiter.done)).toEqual([true, false]);
  });

  it("rejects a waiting acquire with AbortedError and gives its turn to the next", async () => {
    const scheduler = new Scheduler({ concurrency: 1 });
    const slot = await scheduler.acquire("a");
    const controller = new AbortController();
    const aborted = scheduler.acquire("a", { signal: controller.signal });
    const next = track(scheduler.acquire("a"));
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(AbortedError);
    slot.release();
    await settle();
    expect(next.done).toBe(true);
  });

  it("releases the model place when the key lane wait is aborted", async () => {
    const scheduler = new Scheduler({ concurrency: 1, models: { m: { concurrency: 1 } } });
    const other = await scheduler.acquire("other");
    const controller = new AbortController();
    const waiting = scheduler.acquire("m", { signal: controller.signal });
    await settle();
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    other.release();
    // "m" must not still hold its model place from the aborted wait.
    const slot = await scheduler.acquire("m");
    slot.release();
  });

  it("keeps a slot admitted before an abort until it is released", async () => {
    const scheduler = new Scheduler({ concurrency: 1 });
    const controller = new AbortController();
    const slot = await scheduler.acquire("a", { signal: controller.signal });
    controller.abort();
    const next = track(scheduler.acquire("a"));
    await settle();
    expect(next.done).toBe(false);
    slot.release();
    await settle();
    expect(next.done).toBe(true);
  });

  it("starts at most `rpm` requests per minute", async () => {
    vi.useFakeTimers();
    const scheduler = new Scheduler({ rpm: 2 });
    const slots: Slot[] = [await scheduler.acquire("a"), await scheduler.acquire("a")];
    for (const slot of slots) slot.release();
    const third = track(scheduler.acquire("a"));
    await vi.advanceTimersByTimeAsync(59_000);
    expect(third.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(third.done).toBe(true);
  });

  it("releases the slot of run() when the task fails", async () => {
    const scheduler = new Scheduler({ concurrency: 1 });
    await expect(scheduler.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await scheduler.run("a", async () => "second")).toBe("second");
  });

  it.each([
    [{ concurrency: 0 }, "Expected concurrency to be an integer >= 1, got 0."],
    [{ rpm: 1.5 }, "Expected rpm to be an integer >= 1, got 1.5."],
    [{ models: { m: { concurrency: -1 } } }, "Expected models.m.concurrency to be an integer >= 1, got -1."],
  ])("rejects %j naming the option", (options, message) => {
    expect(() => new Scheduler(options)).toThrow(new ConfigError(message));
  });
});

describe("Scheduler: the key's pace learnt from 429s", () => {
  const acquireAll = (scheduler: Scheduler, count: number) =>
    Promise.all(Array.from({ length: count }, () => scheduler.acquire("a")));

  it("sends one fewer at once than were in flight when a 429 for a limit came", async () => {
    const scheduler = new Scheduler();
    const slots = await acquireAll(scheduler, 5);
    expect(scheduler.window).toBe(Number.POSITIVE_INFINITY);
    expect(slots[0]!.release("limited")).toBe(true);
    expect(scheduler.window).toBe(4);
    const waiting = track(scheduler.acquire("a"));
    await settle();
    // Four held and a window of four: the next request waits for one of them to end.
    expect(waiting.done).toBe(false);
    slots[1]!.release();
    await settle();
    expect(waiting.done).toBe(true);
  });

  it("hands places to waiting requests one by one as they free, never overfilling the window", async () => {
    const scheduler = new Scheduler();
    const slots = await acquireAll(scheduler, 3);
    slots[0]!.release("limited");
    slots[1]!.release("limited");
    expect(scheduler.window).toBe(1);
    const waiters = [track(scheduler.acquire("a")), track(scheduler.acquire("a")), track(scheduler.acquire("a"))];
    slots[2]!.release();
    await settle();
    expect(waiters.map((waiter) => waiter.done)).toEqual([true, false, false]);
    expect(scheduler.running).toBe(1);
  });

  it("says a 429 paced the key only when others were in flight to wait for", async () => {
    const scheduler = new Scheduler();
    const alone = await scheduler.acquire("a");
    // Turned away with nothing else in flight: slowing down cannot help, the retry is an attempt.
    expect(alone.release("limited")).toBe(false);
    expect(scheduler.window).toBe(1);
  });

  it("lets one more in after ten answers per place without a 429", async () => {
    const scheduler = new Scheduler();
    const slots = await acquireAll(scheduler, 3);
    slots[0]!.release("limited");
    expect(scheduler.window).toBe(2);
    slots[1]!.release();
    slots[2]!.release();
    for (let answered = 2; answered < 20; answered++) (await scheduler.acquire("a")).release();
    expect(scheduler.window).toBe(3);
  });

  it("rejects a request waiting for the window when its signal aborts, taking no place", async () => {
    const scheduler = new Scheduler();
    const slots = await acquireAll(scheduler, 2);
    slots[0]!.release("limited");
    const controller = new AbortController();
    const aborted = scheduler.acquire("a", { signal: controller.signal });
    const next = track(scheduler.acquire("a"));
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(AbortedError);
    slots[1]!.release();
    await settle();
    expect(next.done).toBe(true);
    expect(scheduler.running).toBe(1);
  });
});
