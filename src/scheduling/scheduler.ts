import PQueue from "p-queue";
import { onAbort } from "../gateway/on-abort.js";
import { positiveInteger } from "../gateway/positive-number.js";
import { toAbortedError } from "../gateway/to-aborted-error.js";

/** Limits of one lane. */
export interface LaneLimits {
  /** Requests in flight at once. Default: unlimited. */
  concurrency?: number;
  /** Requests started per minute (sliding window). Default: unlimited. */
  rpm?: number;
}

/** Options of Scheduler: the key's lane and the model lanes. */
export interface SchedulerOptions extends LaneLimits {
  /** Limits per model id; models not listed get `modelDefaults`. */
  models?: Readonly<Record<string, LaneLimits>>;
  /** Limits of every model lane not listed in `models`. Default: unlimited. */
  modelDefaults?: LaneLimits;
}

/** A held place in both lanes; release it when the request (or stream) is over. */
export interface Slot {
  /** Frees the place; calling it again does nothing. `"limited"`: the gateway turned the request away
   * for the key's rate or concurrency limit (a 429); true when the scheduler then sends fewer at once. */
  release(outcome?: SlotOutcome): boolean;
}

/** How a slot's request ended, as far as the scheduler cares. */
export type SlotOutcome = "done" | "limited";

// The gateway's rate and concurrency limits are not published (spec, section 7), so the key's lane
// learns them: a 429 for a limit lowers the requests in flight to one fewer than were in flight when
// it came, and each further run of WIDEN_AFTER x window answers without one lets one more in again.
const WIDEN_AFTER = 10;

const MINUTE_MS = 60_000;
const noop = (): void => {};

/**
 * Lanes for one API key: one lane for the key (concurrency and requests per minute) and one per
 * model. A slot is held until released, so a stream keeps its place until its last chunk.
 */
export class Scheduler {
  // A lane with no limit is undefined: p-queue would only add bookkeeping (and ~2 us a call) to it.
  readonly #keyLane: PQueue | undefined;
  readonly #modelLanes = new Map<string, PQueue | undefined>();
  readonly #options: SchedulerOptions;
  #held = 0;
  #idle: (() => void)[] = [];
  /** Requests the key may have in flight (all models), as its 429s have shown; unlimited until the first. */
  #window = Number.POSITIVE_INFINITY;
  #answeredInWindow = 0;
  readonly #overWindow: (() => void)[] = [];

  constructor(options: SchedulerOptions = {}) {
    this.#options = options;
    this.#keyLane = createLane("", options);
    for (const [model, limits] of Object.entries(options.models ?? {}))
      this.#modelLanes.set(model, createLane(`models.${model}.`, limits));
    if (options.modelDefaults !== undefined) createLane("modelDefaults.", options.modelDefaults);
  }

  /** Requests waiting for a slot, across both lanes. */
  get waiting(): number {
    let total = (this.#keyLane?.size ?? 0) + this.#overWindow.length;
    for (const lane of this.#modelLanes.values()) total += lane?.size ?? 0;
    return total;
  }

  /** Requests the key may have in flight as the gateway's 429s have shown; Infinity before the first. */
  get window(): number {
    return this.#window;
  }

  /** Slots held right now. */
  get running(): number {
    return this.#held;
  }

  /** Waits until both the model's lane and the key's lane admit one more request. */
  async acquire(model: string, options: { signal?: AbortSignal } = {}): Promise<Slot> {
    const { signal } = options;
    if (signal?.aborted === true) throw toAbortedError(signal.reason);
    // Model lane first: a request waiting on a busy model then holds no key slot that other
    // models could use. A lane without limits is entered without waiting a turn.
    const modelLane = this.#modelLane(model);
    const releaseModel = modelLane === undefined ? noop : await enter(modelLane, signal);
    let releaseKey = noop;
    try {
      if (this.#keyLane !== undefined) releaseKey = await enter(this.#keyLane, signal);
      await this.#enterWindow(signal);
    } catch (error) {
      releaseKey();
      releaseModel();
      throw error;
    }
    let released = false;
    return {
      release: (outcome: SlotOutcome = "done") => {
        if (released) return false;
        released = true;
        const slowed = this.#learn(outcome);
        releaseKey();
        releaseModel();
        this.#held--;
        // A place is counted in #held as it is handed over, so the requests woken here never overfill it.
        while (this.#held < this.#window && this.#overWindow.length > 0) {
          this.#held++;
          this.#overWindow.shift()?.();
        }
        if (this.#held === 0 && this.waiting === 0) for (const resolve of this.#idle.splice(0)) resolve();
        return slowed;
      },
    };
  }

  /** Acquires a slot, runs `task`, and releases the slot however the task ends. */
  async run<T>(
    model: string,
    task: (signal?: AbortSignal) => Promise<T>,
    options: { signal?: AbortSignal } = {},
  ): Promise<T> {
    const slot = await this.acquire(model, options);
    try {
      return await task(options.signal);
    } finally {
      slot.release();
    }
  }

  /** Resolves once nothing is running or waiting. */
  async onIdle(): Promise<void> {
    if (this.#held > 0 || this.waiting > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  // Called with this slot still counted in #held. True when a 429 narrowed the window while others were
  // in flight, so a retry waits for them; a request turned away on its own is paced by backoff alone.
  #learn(outcome: SlotOutcome): boolean {
    if (outcome === "limited") {
      const before = this.#window;
      this.#window = Math.max(1, Math.min(this.#window, this.#held - 1));
      this.#answeredInWindow = 0;
      return this.#window < before && this.#held > 1;
    }
    if (this.#window !== Number.POSITIVE_INFINITY && ++this.#answeredInWindow >= WIDEN_AFTER * this.#window) {
      this.#window++;
      this.#answeredInWindow = 0;
    }
    return false;
  }

  // Counts a request in #held once fewer than #window are in flight, in the order they came.
  #enterWindow(signal: AbortSignal | undefined): Promise<void> | undefined {
    if (this.#held < this.#window && this.#overWindow.length === 0) {
      this.#held++;
      return undefined;
    }
    if (signal?.aborted === true) return Promise.reject(toAbortedError(signal.reason));
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        unsubscribe?.();
        resolve();
      };
      const unsubscribe =
        signal === undefined
          ? undefined
          : onAbort(signal, () => {
              const at = this.#overWindow.indexOf(wake);
              if (at >= 0) this.#overWindow.splice(at, 1);
              reject(toAbortedError(signal.reason));
            });
      this.#overWindow.push(wake);
    });
  }

  #modelLane(model: string): PQueue | undefined {
    if (this.#modelLanes.has(model)) return this.#modelLanes.get(model);
    const lane = createLane("modelDefaults.", this.#options.modelDefaults ?? {});
    this.#modelLanes.set(model, lane);
    return lane;
  }
}

function createLane(prefix: string, limits: LaneLimits): PQueue | undefined {
  const concurrency = positiveInteger(`${prefix}concurrency`, limits.concurrency ?? Number.POSITIVE_INFINITY, {
    allowInfinity: true,
  });
  if (limits.rpm === undefined)
    return concurrency === Number.POSITIVE_INFINITY ? undefined : new PQueue({ concurrency });
  const rpm = positiveInteger(`${prefix}rpm`, limits.rpm);
  // Strict is a sliding window: a fixed window would allow 2 x rpm across a window boundary.
  return new PQueue({ concurrency, intervalCap: rpm, interval: MINUTE_MS, strict: true });
}

// Holds a place in a p-queue lane until the returned function is called. The caller's signal
// only counts while waiting: once admitted, p-queue would free the place on abort while the
// request is still running, so a signal of our own is passed and detached on admission.
function enter(lane: PQueue, signal: AbortSignal | undefined): Promise<() => void> {
  if (signal?.aborted === true) return Promise.reject(toAbortedError(signal.reason));
  // p-queue's abort support costs ~10 us per task: only asked for when there is a signal to follow.
  const waiting = signal === undefined ? undefined : new AbortController();
  const unsubscribe = signal === undefined ? undefined : onAbort(signal, () => waiting?.abort(signal.reason));
  return new Promise<() => void>((resolve, reject) => {
    lane
      .add(
        () =>
          new Promise<void>((done) => {
            unsubscribe?.();
            resolve(done);
          }),
        waiting === undefined ? {} : { signal: waiting.signal },
      )
      .catch((error: unknown) => {
        unsubscribe?.();
        reject(signal?.aborted === true ? toAbortedError(signal.reason) : error);
      });
  });
}
