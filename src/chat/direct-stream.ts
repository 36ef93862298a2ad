import { IterableReadableStream } from "@langchain/core/utils/stream";
import type { PullSource } from "../gateway/chat-stream.js";
import { IteratorStep } from "./plain-object.js";

/** What a DirectStream reads from, and the real ReadableStream once one is needed. */
interface State<S, T> {
  source: PullSource<S> | undefined;
  map: ((piece: S) => T) | undefined;
  real: ReadableStream<T> | undefined;
}

/**
 * The stream `ChatGateway.stream()` returns when no callback handler or tracer watches the call:
 * an `IterableReadableStream` whose `for await` takes each piece from the source and maps it into
 * a chunk only when asked: nothing parsed waits in between. LangChain's own wrapper re-enters
 * AsyncLocalStorage and re-configures callbacks on every chunk, which costs more than reading the
 * chunk off the wire.
 *
 * Node's ReadableStream costs tens of microseconds to construct (it is made transferable) and is
 * then kept until a full GC, with what it points to. Most callers only iterate, so the real stream
 * behind this one is made the first time a ReadableStream method is called (`getReader`, `pipeTo`,
 * `tee`, ...); it reads the same chunks, from where iteration left off.
 */
export class DirectStream<S, T> extends IterableReadableStream<T> {
  // Never constructed (see `of`): its state is set there, not by field initialisers.
  declare private state: State<S, T>;

  /** The stream of the source's pieces, each through `map`. A source and a function rather than
   * generators: each generator in a chain costs a promise per item. */
  static of<S, T>(source: PullSource<S>, map: (piece: S) => T): DirectStream<S, T> {
    const stream = Object.create(DirectStream.prototype) as DirectStream<S, T>;
    stream.state = { source, map, real: undefined };
    return stream;
  }

  override next(): Promise<IteratorResult<T>> {
    const state = this.state;
    // A piece at hand (most of them, when a read brings many) is handed over without the frame an
    // async function allocates on every call.
    try {
      const piece = state.source?.take();
      if (piece !== undefined) return Promise.resolve(new IteratorStep(state.map!(piece)));
    } catch (error) {
      return endWith(state, error);
    }
    return waitForPiece(state);
  }

  override async return(): Promise<IteratorResult<T>> {
    await end(this.state);
    return { done: true, value: undefined };
  }

  override async throw(error: unknown): Promise<IteratorResult<T>> {
    await end(this.state);
    throw error;
  }

  /** Whether the real stream (if made yet) is locked to a reader. */
  static lockedOf(stream: DirectStream<unknown, unknown>): boolean {
    return stream.state.real?.locked ?? false;
  }

  /** The real ReadableStream, pulling from this one: made on first use. */
  static realOf<T>(stream: DirectStream<unknown, T>): ReadableStream<T> {
    // highWaterMark 0: a reader pulls on demand, so nothing is read ahead.
    return (stream.state.real ??= new ReadableStream<T>(
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

/** The next chunk once the source has read more, or the end. */
async function waitForPiece<S, T>(state: State<S, T>): Promise<IteratorResult<T>> {
  try {
    for (let source = state.source; source !== undefined && (await source.read()); source = state.source) {
      const piece = source.take();
      if (piece !== undefined) return new IteratorStep(state.map!(piece));
    }
  } catch (error) {
    return endWith(state, error);
  }
  await end(state);
  return { done: true, value: undefined };
}

async function endWith<S, T>(state: State<S, T>, error: unknown): Promise<never> {
  await end(state);
  throw error;
}

/** Cancels the source (a no-op when it has ended) and lets go of it. (A function, not a private
 * method: a DirectStream is never constructed, so it has no brand.) */
async function end<S, T>(state: State<S, T>): Promise<void> {
  const source = state.source;
  state.source = undefined;
  state.map = undefined;
  await source?.cancel();
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
