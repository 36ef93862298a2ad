import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AbortedError,
  AuthenticationError,
  BadRequestError,
  ConfigError,
  QuotaExceededError,
  RateLimitError,
  SvcFlowError,
  UpstreamError,
} from "../src/errors.js";
import { backoffDelayMs } from "../src/scheduling/backoff-delay.js";
import { RetryBudget } from "../src/scheduling/retry-budget.js";
import { withRetry } from "../src/scheduling/retry.js";

const upstream = () => new UpstreamError("503", { status: 503 });

/** A task that fails with the given errors in turn, then returns "ok". */
function failing(...errors: Error[]) {
  const task = vi.fn(async (_attempt: number) => {
    const error = errors[task.mock.calls.length - 1];
    if (error !== undefined) throw error;
    return "ok";
  });
  return task;
}

describe("withRetry", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("retries an upstream failure with exponential backoff until it succeeds", async () => {
    const task = failing(upstream(), upstream());
    const delays: number[] = [];
    const result = withRetry(
      task,
      { jitter: "none" },
      { onRetry: (_error, _attempt, delayMs) => delays.push(delayMs) },
    );
    await vi.runAllTimersAsync();
    await expect(result).resolves.toBe("ok");
    expect(task).toHaveBeenCalledTimes(3);
    expect(delays).toEqual([250, 500]);
  });

  it("waits the backoff before the next attempt, not less", async () => {
    const task = failing(upstream());
    const result = withRetry(task, { jitter: "none", minDelayMs: 1000 });
    await vi.advanceTimersByTimeAsync(999);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe("ok");
    expect(task).toHaveBeenCalledTimes(2);
  });

  it("gives up after the attempts and rethrows the last error", async () => {
    const last = new UpstreamError("fourth", { status: 502 });
    const task = failing(upstream(), upstream(), upstream(), last, upstream());
    const result = withRetry(task, { attempts: 4 });
    const settled = expect(result).rejects.toBe(last);
    await vi.runAllTimersAsync();
    await settled;
    expect(task).toHaveBeenCalledTimes(4);
  });

  it.each([
    ["insufficient_quota", new QuotaExceededError("quota", { status: 429 })],
    ["a 400", new BadRequestError("bad", { status: 400 })],
    ["a 401", new AuthenticationError("key", { status: 401 })],
    ["an error that is not ours", new TypeError("bug")],
  ])("does not retry %s", async (_name, error) => {
    const task = failing(error);
    await expect(withRetry(task)).rejects.toBe(error);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it("treats Retry-After as a floor under the backoff", async () => {
    const task = failing(new RateLimitError("429", { status: 429, retryAfterS: 2 }));
    const delays: number[] = [];
    const result = withRetry(
      task,
      { jitter: "full" },
      { random: () => 0, onRetry: (_e, _a, delayMs) => delays.push(delayMs) },
    );
    await vi.advanceTimersByTimeAsync(1999);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe("ok");
    expect(delays).toEqual([2000]);
  });

  it("keeps the backoff when it is longer than Retry-After", async () => {
    const delays: number[] = [];
    const result = withRetry(
      failing(new RateLimitError("429", { retryAfterS: 0.05 })),
      { jitter: "none", minDelayMs: 400 },
      {
        onRetry: (_e, _a, delayMs) => delays.push(delayMs),
      },
    );
    await vi.runAllTimersAsync();
    await result;
    expect(delays).toEqual([400]);
  });

  it("stops at once when Retry-After is longer than longRetryAfterS, so the caller can fall back", async () => {
    const error = new RateLimitError("429", { retryAfterS: 120 });
    const task = failing(error);
    await expect(withRetry(task, { longRetryAfterS: 30 })).rejects.toBe(error);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it("shares one budget across nested layers so attempts do not multiply", async () => {
    const budget = new RetryBudget(5);
    const inner = vi.fn(async () => {
      throw upstream();
    });
    // Three fallback models of four attempts each would be 12 requests without the budget.
    const outer = withRetry(
      async () => {
        for (const _model of ["a", "b", "c"]) {
          try {
            return await withRetry(inner, { attempts: 4 }, { budget });
          } catch {
            // fall back to the next model
          }
        }
        throw new SvcFlowError("all_failed", "all models failed", { retryable: true });
      },
      { attempts: 2 },
      { budget: new RetryBudget(100) },
    );
    const settled = expect(outer).rejects.toThrow();
    await vi.runAllTimersAsync();
    await settled;
    expect(inner).toHaveBeenCalledTimes(5);
    expect(budget.remaining).toBe(0);
  });

  it("rethrows the last failure when the budget refuses the first attempt", async () => {
    const budget = new RetryBudget(1);
    const first = upstream();
    await expect(withRetry(failing(first), {}, { budget })).rejects.toBe(first);
    const second = vi.fn(async () => "never");
    await expect(withRetry(second, {}, { budget })).rejects.toBe(first);
    expect(second).not.toHaveBeenCalled();
  });

  it("stops waiting and throws AbortedError when the signal aborts", async () => {
    const controller = new AbortController();
    const task = failing(upstream(), upstream());
    const result = withRetry(task, { minDelayMs: 10_000, jitter: "none" }, { signal: controller.signal });
    const settled = expect(result).rejects.toBeInstanceOf(AbortedError);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await settled;
    expect(task).toHaveBeenCalledTimes(1);
  });

  it("uses an injected sleep", async () => {
    vi.useRealTimers();
    const waits: number[] = [];
    const result = await withRetry(
      failing(upstream()),
      { jitter: "none", minDelayMs: 5000 },
      {
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    );
    expect(result).toBe("ok");
    expect(waits).toEqual([5000]);
  });

  it("does not count a 429 that paced the key against the attempts, up to limitRetries", async () => {
    vi.useRealTimers();
    const paced = () => Object.assign(new RateLimitError("429 concurrency_limit_exceeded"), { paced: true });
    const noWait = { sleep: async () => undefined };
    // One attempt, three paced 429s before it: all three are retried.
    const task = failing(paced(), paced(), paced());
    expect(await withRetry(task, { attempts: 1 }, noWait)).toBe("ok");
    expect(task).toHaveBeenCalledTimes(4);
    // A 429 that did not pace the key (nothing else in flight) is an attempt like any failure.
    await expect(withRetry(failing(new RateLimitError("429")), { attempts: 1 }, noWait)).rejects.toBeInstanceOf(
      RateLimitError,
    );
    // Past limitRetries, paced 429s count as attempts again.
    const capped = failing(paced(), paced(), paced());
    await expect(withRetry(capped, { attempts: 2, limitRetries: 1 }, noWait)).rejects.toBeInstanceOf(RateLimitError);
    expect(capped).toHaveBeenCalledTimes(3);
  });

  it.each([
    [{ attempts: 0 }, "Expected attempts to be an integer >= 1, got 0."],
    [{ maxDelayMs: 10, minDelayMs: 20 }, "Expected maxDelayMs to be >= minDelayMs (20), got 10."],
    [{ factor: 0.5 }, "Expected factor to be >= 1, got 0.5."],
    [{ limitRetries: -1 }, "Expected limitRetries to be an integer >= 0, got -1."],
  ])("rejects the policy %j with a message naming the option", async (policy, message) => {
    await expect(withRetry(async () => "x", policy)).rejects.toThrow(new ConfigError(message));
  });
});

describe("backoffDelayMs", () => {
  const input = fc.record({
    attempt: fc.integer({ min: 1, max: 30 }),
    minDelayMs: fc.integer({ min: 0, max: 2000 }),
    extraMs: fc.integer({ min: 0, max: 60_000 }),
    factor: fc.double({ min: 1, max: 4, noNaN: true }),
    random: fc.double({ min: 0, max: 0.999999, noNaN: true }),
    previousDelayMs: fc.integer({ min: 0, max: 60_000 }),
  });

  it("keeps full jitter within [0, the exponential ceiling] (property)", () => {
    fc.assert(
      fc.property(input, ({ attempt, minDelayMs, extraMs, factor, random }) => {
        const maxDelayMs = minDelayMs + extraMs;
        const ceiling = Math.min(maxDelayMs, minDelayMs * factor ** (attempt - 1));
        const delay = backoffDelayMs({ attempt, minDelayMs, maxDelayMs, factor, jitter: "full", random: () => random });
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(Math.round(ceiling));
      }),
    );
  });

  it("keeps decorrelated jitter within [minDelayMs, maxDelayMs] (property)", () => {
    fc.assert(
      fc.property(input, ({ attempt, minDelayMs, extraMs, factor, random, previousDelayMs }) => {
        const maxDelayMs = minDelayMs + extraMs;
        const delay = backoffDelayMs({
          attempt,
          minDelayMs,
          maxDelayMs,
          factor,
          jitter: "decorrelated",
          previousDelayMs,
          random: () => random,
        });
        expect(delay).toBeGreaterThanOrEqual(minDelayMs);
        expect(delay).toBeLessThanOrEqual(maxDelayMs);
      }),
    );
  });

  it("doubles the ceiling per attempt without jitter", () => {
    const delays = [1, 2, 3, 4].map((attempt) =>
      backoffDelayMs({ attempt, minDelayMs: 100, maxDelayMs: 500, factor: 2, jitter: "none" }),
    );
    expect(delays).toEqual([100, 200, 400, 500]);
  });
});
