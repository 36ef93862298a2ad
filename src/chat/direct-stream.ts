import { IterableReadableStream } from "@langchain/core/utils/stream";

/**
 * The stream `ChatGateway.stream()` returns when no callback handler or tracer watches the call:
 * a real `IterableReadableStream` (readers, `pipeTo` and `tee` work), whose `for await` reads the
 * chunk generator directly. LangChain's own wrapper re-enters AsyncLocalStorage and re-configures
 * callbacks on every chunk, which costs more than reading the chunk off the wire.
 */
export class DirectStream<S, T> extends IterableReadableStream<T> {
  // Let go of once the stream has ended. Node keeps a web ReadableStream until a full GC (it is
  // transferable, so tracked from C++); what it still points to would be kept with it: the
  // generator holds the whole call (reply, connection, parser).
  #batches: AsyncGenerator<S[]> | undefined;
  #map: ((chunk: S) => T) | undefined;
  #batch: S[];
  #index = 0;

  /** `first` was already read (so errors before the first chunk reject `stream()`, as LangChain's do). */
  private constructor(first: S[], batches: AsyncGenerator<S[]>, map: (chunk: S) => T) {
    // highWaterMark 0: a reader pulls on demand, so nothing is read ahead of a `for await`.
    super(
      {
        pull: async (controller) => {
          const next = await this.next();
          if (next.done === true) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: async () => {
          await this.#end();
        },
      },
      { highWaterMark: 0 },
    );
    this.#batch = first;
    this.#batches = batches;
    this.#map = map;
  }

  /** Reads the first batch of chunks, then hands back the stream of them and the rest, one by one
   * and each through `map`. Batches (all the chunks of one network read) and a function rather
   * than more generators: each generator in a chain costs a promise per item. */
  static async of<S, T>(batches: AsyncGenerator<S[]>, map: (chunk: S) => T): Promise<DirectStream<S, T>> {
    const first = await batches.next();
    return new DirectStream(first.done === true ? [] : first.value, batches, map);
  }

  override async next(): Promise<IteratorResult<T>> {
    while (this.#index >= this.#batch.length) {
      const next = await this.#batches?.next();
      if (next === undefined || next.done === true) {
        await this.#end();
        return { done: true, value: undefined };
      }
      this.#batch = next.value;
      this.#index = 0;
    }
    return { done: false, value: this.#map!(this.#batch[this.#index++]!) };
  }

  override async return(): Promise<IteratorResult<T>> {
    await this.#end();
    return { done: true, value: undefined };
  }

  override async throw(error: unknown): Promise<IteratorResult<T>> {
    await this.#end();
    throw error;
  }

  /** Closes the generator (when it is not done already) and lets go of it. */
  async #end(): Promise<void> {
    const batches = this.#batches;
    this.#batches = undefined;
    this.#map = undefined;
    this.#batch = [];
    this.#index = 0;
    await batches?.return(undefined);
  }
}
