/** Options of `forEachConcurrent`. */
export interface ForEachConcurrentOptions {
  /** Items in flight at once (>= 1). */
  readonly concurrency: number;
  /** Stops pulling new items; those in flight are awaited (they should watch the signal themselves). */
  readonly signal?: AbortSignal;
}

/**
 * Runs `worker` over an async iterable with at most `concurrency` items in flight, pulling the next
 * item only when a slot frees up, so memory stays flat however long the source. A worker frees its
 * slot when it settles, or earlier by calling `release` (its remaining work, such as waiting for a
 * record to be durable, is still awaited and its failure still counts). The first worker error
 * stops pulling, waits for the items in flight, and is thrown. Resolves `false` when the signal
 * stopped it before the source ended.
 */
export async function forEachConcurrent<T>(
  source: AsyncIterable<T>,
  worker: (item: T, release: () => void) => Promise<void>,
  options: ForEachConcurrentOptions,
): Promise<boolean> {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new RangeError(`Expected concurrency to be an integer >= 1, got ${options.concurrency}.`);
  }
  const iterator = source[Symbol.asyncIterator]();
  const running = new Set<Promise<void>>();
  let active = 0;
  let wake: (() => void) | undefined;
  let failure: { error: unknown } | undefined;
  let finished = false;
  try {
    for (;;) {
      // One waiter, woken by the next slot given back: waiting costs the same at any concurrency.
      while (active >= options.concurrency && failure === undefined)
        await new Promise<void>((resolve) => (wake = resolve));
      if (failure !== undefined || options.signal?.aborted) break;
      const next = await iterator.next();
      if (next.done) {
        finished = true;
        break;
      }
      active++;
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        active--;
        const waiting = wake;
        wake = undefined;
        waiting?.();
      };
      const task: Promise<void> = worker(next.value, release)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => {
          running.delete(task);
          release();
        });
      running.add(task);
    }
  } finally {
    await Promise.all(running);
    if (!finished) await iterator.return?.(undefined);
  }
  if (failure !== undefined) throw failure.error;
  return finished;
}
