import { StreamError, type GatewayIds } from "../errors.js";
import type { ArgumentsDelta } from "./arguments-delta.js";
import { ChunkReader } from "./chunk-reader.js";
import { wasReplayed } from "./gateway-ids.js";
import type { OpenResponse } from "./http-transport.js";
import type { ChatChunk } from "./wire.js";

/**
 * A streamed chat completion: iterate it once for its chunks. Iterating throws StreamError
 * (malformed event, or ended without a finish reason; `partial` holds the chunks that came),
 * TimeoutError (no event in time), UpstreamError (connection cut), AbortedError (signal).
 */
export interface ChatStream extends AsyncIterable<ChatChunk>, ChunkSource {
  /** The ids of the response headers. */
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored stream for the call's idempotency key (billed once,
   * earlier); absent means false. */
  readonly replayed?: boolean;
  /** The next chunks, grouped as they arrived (all those of one network read, at least one), or
   * undefined at the end. A busy reader pays one await per read instead of one per chunk. Read
   * the stream one way only (iterating, batches, reads, or take or takeDelta with read); a reader
   * that stops before the end calls `cancel()`. */
  nextBatch(): Promise<ChatChunk[] | undefined>;
  /** Like nextBatch, but hands each chunk of the next network read to `visit` as it is parsed, and
   * resolves to false at the end. */
  nextRead(visit: (chunk: ChatChunk) => void): Promise<boolean>;
}

/** A stream read by pulling: `take` the next item of what was read, made now; `read` to wait
 * for more. A reader that keeps nothing holds nothing made while it waits. */
export interface PullSource<T> {
  /** The next item of what was read, made now; undefined when none is left: then `read()`. */
  take(): T | undefined;
  /** Waits for the next network read; resolves to false at the end, once every item was taken. */
  read(): Promise<boolean>;
  /** Stops the stream and frees what it holds; safe to call at any time, also after the end. */
  cancel(): Promise<void>;
}

/** The pull interface under every way of reading a ChatStream: `take` parses the next chunk of
 * the bytes already read. Only the bytes not parsed yet wait: with many streams read at once,
 * parsed chunks held across a young-generation GC are copied, then kept until a full one. */
export interface ChunkSource extends PullSource<ChatChunk> {
  /** Like `take`, but a chunk that is the chunk before it but for the one string it adds comes as
   * that string alone, read by comparing text, not parsed into an object: a string for text added
   * to choice 0, an ArgumentsDelta for a fragment of a tool call's arguments. The fastest way to
   * read a stream; other chunks come as from `take`. */
  takeDelta(): ChatChunk | string | ArgumentsDelta | undefined;
}

/** How createChatStream reads: the chunk timeout, the key to keep out of errors, and whether to
 * keep the chunks for a StreamError's `partial`. */
export interface ChatStreamOptions {
  readonly chunkTimeoutMs: number;
  readonly apiKey?: string;
  readonly keepPartial?: boolean;
}

/** Wraps an open `text/event-stream` response as a ChatStream. */
export function createChatStream(opened: OpenResponse, options: ChatStreamOptions): ChatStream {
  return chatStreamOf(new ChunkReader(opened, options), opened.ids, wasReplayed(opened.headers));
}

/** A ChatStream made of its pull interface: batches, reads and iteration all come from `take` and
 * `read`. */
export function chatStreamOf(source: ChunkSource, ids: GatewayIds, replayed: boolean): ChatStream {
  let started = false;
  // An error found after good chunks of the same read: thrown once those have been handed over.
  let failure: unknown;
  const stream: ChatStream = {
    ids,
    replayed,
    take() {
      return source.take();
    },
    takeDelta() {
      return source.takeDelta();
    },
    read() {
      return source.read();
    },
    async nextRead(visit: (chunk: ChatChunk) => void): Promise<boolean> {
      if (failure !== undefined) {
        const error = failure;
        failure = undefined;
        throw error;
      }
      for (;;) {
        let visited = 0;
        for (;;) {
          let chunk: ChatChunk | undefined;
          try {
            chunk = source.take();
          } catch (error) {
            if (visited === 0) throw error;
            failure = error;
            break;
          }
          if (chunk === undefined) break;
          visited++;
          visit(chunk);
        }
        if (visited > 0) return true;
        if (!(await source.read())) return false;
      }
    },
    nextBatch(): Promise<ChatChunk[] | undefined> {
      return batchOf((visit) => stream.nextRead(visit));
    },
    [Symbol.asyncIterator]() {
      if (started) throw new StreamError("A ChatStream can be iterated only once.", { retryable: false });
      started = true;
      return chunksOf(source);
    },
    cancel() {
      return source.cancel();
    },
  };
  return stream;
}

/** nextBatch made of nextRead: the next read's chunks gathered, or undefined at the end. */
async function batchOf(nextRead: ChatStream["nextRead"]): Promise<ChatChunk[] | undefined> {
  const chunks: ChatChunk[] = [];
  return (await nextRead((chunk) => chunks.push(chunk))) ? chunks : undefined;
}

/** A source's items one by one, each made when it is asked for; leaving early cancels it. */
export async function* chunksOf<T>(source: PullSource<T>): AsyncGenerator<T> {
  let ended = false;
  try {
    for (;;) {
      const chunk = source.take();
      if (chunk !== undefined) yield chunk;
      else if (!(await source.read())) break;
    }
    ended = true;
  } finally {
    if (!ended) await source.cancel();
  }
}
