import { IterableReadableStream } from "@langchain/core/utils/stream";

/** What a DirectStream reads from, and the real ReadableStream once one is needed. */
interface Source<S, T> {
  batches: AsyncGenerator<S[]> | undefined;
  map: ((chunk: S) => T) | undefined;
  batch: S[];
  index: number;
  real: ReadableStream<T> | undefined;
}

/**
 * The stream `ChatGateway.stream()` returns when no callback handler or tracer watches the call:
 * an `IterableReadableStream` whose `for await` reads the chunk generator directly. LangChain's own
 * wrapper re-enters AsyncLocalStorage and re-configures callbacks on every chunk, which costs more
 * than reading the chunk off the wire.
 *
 * Node's ReadableStream costs tens of microseconds to construct (it is made transferable) and is
 * then kept until a full GC, with what it points to. Most callers only iterate, so the real stream
 * behind this one is made the first time a ReadableStream method is called (`getReader`, `pipeTo`,
 * `tee`, ...); it reads the same chunks, from where iteration left off.
 */
export class DirectStream<S, T> extends IterableReadableStream<T> {
  // Never constructed (see `of`): its state is set there, not by field initialisers.
  declare private source: Source<S, T>;

  /** Reads the first batch of chunks (so errors before the first chunk reject `stream()`, as
   * LangChain's do), then hands back the stream of them and the rest, one by one and each through
   * `map`. Batches (the chunks of one network read) and a function rather than more generators:
   * each generator in a chain costs a promise per item. */
  static async of<S, T>(batches: AsyncGenerator<S[]>, map: (chunk: S) => T): Promise<DirectStream<S, T>> {
    const first = await batches.next();
    const stream = Object.create(DirectStream.prototype) as DirectStream<S, T>;
    stream.source = { batches, map, batch: first.done === true ? [] : first.value, index: 0, real: undefined };
    return stream;
  }

  override async next(): Promise<IteratorResult<T>> {
    const source = this.source;
    while (source.index >= source.batch.length) {
      const next = await source.batches?.next();
      if (next === undefined || next.done === true) {
        await end(source as Source<unknown, unknown>);
        return { done: true, value: undefined };
      }
      source.batch = next.value;
      source.index = 0;
    }
    return { done: false, value: source.map!(source.batch[source.index++]!) };
  }

  override async return(): Promise<IteratorResult<T>> {
    await end(this.source as Source<unknown, unknown>);
    return { done: true, value: undefined };
  }

  override async throw(error: unknown): Promise<IteratorResult<T>> {
    await end(this.source as Source<unknown, unknown>);
    throw error;
  }

  /** Whether the real stream (if made yet) is locked to a reader. */
  static lockedOf(stream: DirectStream<unknown, unknown>): boolean {
    return stream.source.real?.locked ?? false;
  }

  /** The real ReadableStream, pulling from this one: made on first use. */
  static realOf<T>(stream: DirectStream<unknown, T>): ReadableStream<T> {
    // highWaterMark 0: a reader pulls on demand, so nothing is read ahead.
    return (stream.source.real ??= new ReadableStream<T>(
      {
        pull: async (controller) => {
          const next = await stream.next();
          if (next.done === true) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: async () => {
          await stream.return();
        },
      },
      { highWaterMark: 0 },
    ));
  }
}

/** Closes the generator (when it is not done already) and lets go of it and the chunks. (A
 * function, not a private method: a DirectStream is never constructed, so it has no brand.) */
async function end(source: Source<unknown, unknown>): Promise<void> {
  const batches = source.batches;
  source.batches = undefined;
  source.map = undefined;
  source.batch = [];
  source.index = 0;
  await batches?.return(undefined);
}

// ReadableStream's own members (getReader, cancel, pipeTo, pipeThrough, tee, values, locked, and
// its inspector) act on the real stream. Iteration stays DirectStream's own.
for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(ReadableStream.prototype)) as [string, PropertyDescriptor][]) {
  if (name === "constructor") continue;
  forward(name, descriptor);
}
for (const symbol of Object.getOwnPropertySymbols(ReadableStream.prototype)) {
  if (symbol === Symbol.asyncIterator || symbol === Symbol.toStringTag) continue;
  forward(symbol, Object.getOwnPropertyDescriptor(ReadableStream.prototype, symbol)!);
}

function forward(key: PropertyKey, descriptor: PropertyDescriptor): void {
  const real = (self: unknown): ReadableStream => DirectStream.realOf(self as DirectStream<unknown, unknown>);
  if (typeof descriptor.value === "function") {
    const method = descriptor.value as (...args: unknown[]) => unknown;
    Object.defineProperty(DirectStream.prototype, key, { ...descriptor, value: function (this: unknown, ...args: unknown[]) { return method.apply(real(this), args); } });
  } else if (key === "locked") {
    // Asking is no reason to make the real stream: until then nothing holds a reader.
    Object.defineProperty(DirectStream.prototype, key, { ...descriptor, get: function (this: DirectStream<unknown, unknown>) { return DirectStream.lockedOf(this); } });
  } else if (descriptor.get !== undefined) {
    const get = descriptor.get;
    Object.defineProperty(DirectStream.prototype, key, { ...descriptor, get: function (this: unknown) { return get.call(real(this)); } });
  }
}
