/** Time as the scheduler sees it: injectable so tests can run a fast cron or a fake clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` after about `delayMs`; returns a function that cancels it. It may wake early. */
  setTimer(callback: () => void, delayMs: number): () => void;
}

// setTimeout overflows past 2^31-1 ms (~24.8 days) and fires at once; the scheduler re-arms on waking early.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock: Date.now and setTimeout. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  },
};
