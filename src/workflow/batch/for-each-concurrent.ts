/** Options of `forEachConcurrent`. */
export interface ForEachConcurrentOptions {
  /** Items in flight at once (>= 1). */
  readonly concurrency: number;
  /** Stops pulling new items; those in flight are awaited (they should watch the signal themselves). */
  readonly signal?: AbortSignal;
}

/**
 * Runs `worker` over an async iterable with at most `concurrency` items in flight, pulling the next
 * item only when a slot frees up, so memory stays flat however long the source. The first worker
 * error stops pulling, waits for the items in flight, and is thrown. Resolves `false` when the
 * signal stopped it before the source ended.
 */
export async function forEachConcurrent<T>(
  source: AsyncIterable<T>,
  worker: (item: T) => Promise<void>,
  options: ForEachConcurrentOptions,
): Promise<boolean> {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new RangeError(`Expected concurrency to be an integer >= 1, got ${options.concurrency}.`);
  }
  const iterator = source[Symbol.asyncIterator]();
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let finished = false;
  try {
    while (failure === undefined && !options.signal?.aborted) {
      const next = await iterator.next();
      if (next.done) {
        finished = true;
        break;
      }
      const task: Promise<void> = worker(next.value)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => running.delete(task));
      running.add(task);
      if (running.size >= options.concurrency) await Promise.race(running);
    }
  } finally {
    await Promise.all(running);
    if (!finished) await iterator.return?.(undefined);
  }
  if (failure !== undefined) throw failure.error;
  return finished;
}
