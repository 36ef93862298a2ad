/** Runs tasks with at most `concurrency` in flight, in the order they were handed in. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** A concurrency limit for async tasks (the run's call limit, a map's item limit). */
export function createLimiter(concurrency: number): Limiter {
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`Expected concurrency to be an integer >= 1, got ${concurrency}.`);
  let active = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    active--;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      next();
    }
  };
}
