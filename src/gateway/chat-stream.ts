import { StreamError, SvcFlowError, redactSecrets, type GatewayIds } from "../errors.js";
import { errorFromResponse } from "./error-from-response.js";
import { wasReplayed } from "./gateway-ids.js";
import type { OpenResponse } from "./http-transport.js";
import { SseDecoder, type SseEvent } from "./parse-sse.js";
import { TextDeltaShape } from "./text-delta-shape.js";
import { chatChunkSchema, errorBodySchema, type ChatChunk } from "./wire.js";
import { isChatChunk, mayBeErrorBody } from "./wire-guards.js";

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
   * the stream one way only (iterating, batches, reads, or take and read); a reader that stops
   * before the end calls `cancel()`. */
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
  /** Like `take`, but a chunk that only adds text to choice 0, and is the same as the chunk before
   * it but for that text, comes as the text alone: read by comparing strings, not parsed into an
   * object. The way to read a stream for its text, fastest; other chunks come as from `take`. */
  takeDelta(): ChatChunk | string | undefined;
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
  return chatStreamOf(chunkSource(opened, options), opened.ids, wasReplayed(opened.headers));
}

function chunkSource(opened: OpenResponse, options: ChatStreamOptions): ChunkSource {
  const { chunkTimeoutMs, apiKey } = options;
  const keepPartial = options.keepPartial ?? true;
  let done = false;
  let cancelled = false;
  const finish = (complete: boolean): void => {
    done = true;
    opened.watchdog.release();
    if (opened.body.destroyed) return;
    // Destroying emits "error" on the body, which nobody reads any more.
    opened.body.on("error", () => undefined);
    // A stream read to its end hands its socket back to the pool; anything else closes it.
    if (complete) opened.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    else opened.body.destroy();
  };

  // The events' text, for the partial of an error (the parsed chunks would cost the collector
  // more, and an error is rare); empty unless keepPartial.
  const received: string[] = [];
  let count = 0;
  const sse = new SseDecoder();
  let body: AsyncIterator<unknown> | undefined;
  // The last event, when the body ended without its blank line.
  let tail: SseEvent[] = [];
  let ended = false;
  let finishReason = false;
  // The first wait is the first-byte timer's, armed when the request was sent.
  let armed = true;

  // Made once per stream; the chunks of text are read by comparing strings once their shape is known.
  let shape: TextDeltaShape | undefined;
  function next(delta: boolean): ChatChunk | string | undefined {
    if (done) return undefined;
    try {
      let event: SseEvent | undefined;
      try {
        event = sse.take() ?? tail.shift();
      } catch (error) {
        throw error instanceof StreamError ? withPartial(error, received, opened.ids) : error;
      }
      if (event === undefined) return undefined;
      // The timer runs from the last event, so keep-alive comments cannot hide a stalled stream;
      // it is stopped while the consumer works on the chunk.
      if (armed) {
        opened.watchdog.disarm();
        armed = false;
      }
      const data = event.data;
      const text = delta ? shape?.match(data) : undefined;
      let chunk: ChatChunk | undefined;
      if (text === undefined) {
        chunk = readChunk(data, received, opened, apiKey);
        if (hasFinishReason(chunk)) finishReason = true;
        if (delta) (shape ??= new TextDeltaShape()).learn(data, chunk);
      }
      count++;
      if (keepPartial) received.push(data);
      return chunk ?? text;
    } catch (error) {
      finish(false);
      throw error;
    }
  }

  // Methods, not arrow functions: under tsx (esbuild keepNames) every named closure made per
  // call also costs an Object.defineProperty of its name, ~0.4 us.
  return {
    take(): ChatChunk | undefined {
      return next(false) as ChatChunk | undefined;
    },

    takeDelta(): ChatChunk | string | undefined {
      return next(true);
    },

    async read(): Promise<boolean> {
      if (done) return false;
      try {
        if (!sse.done && !ended) {
          if (!armed) opened.watchdog.arm(chunkTimeoutMs, "the next stream event");
          armed = true;
          body ??= opened.body.iterator({ destroyOnReturn: false });
          let next: IteratorResult<unknown>;
          try {
            next = await body.next();
          } catch (error) {
            // The consumer chose to stop: ending quietly is what it asked for.
            if (cancelled) return false;
            throw opened.watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
          }
          if (cancelled) return false;
          try {
            if (next.done === true) {
              ended = true;
              tail = sse.end();
            } else sse.push(next.value as Buffer);
          } catch (error) {
            throw error instanceof StreamError ? withPartial(error, received, opened.ids) : error;
          }
          return true;
        }
        if (!finishReason) {
          throw new StreamError(
            `The stream from ${opened.url} ended without a finish reason after ${count} chunk(s); the reply is incomplete. Retry the request.`,
            { ...opened.ids, partial: receivedChunks(received) },
          );
        }
        finish(true);
        return false;
      } catch (error) {
        finish(false);
        throw error;
      }
    },

    async cancel(): Promise<void> {
      if (done) return;
      cancelled = true;
      opened.watchdog.cancel();
      finish(false);
    },
  };
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

function hasFinishReason(chunk: ChatChunk): boolean {
  for (const choice of chunk.choices) if (choice.finish_reason != null) return true;
  return false;
}

/** The chunks that arrived before a failure (each one was checked when it came). */
function receivedChunks(received: readonly string[]): ChatChunk[] {
  return received.map((data) => JSON.parse(data) as ChatChunk);
}

function readChunk(data: string, received: string[], opened: OpenResponse, apiKey: string | undefined): ChatChunk {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new StreamError(`Malformed stream event (not JSON): ${redactSecrets(data.slice(0, 120))}`, { ...opened.ids, partial: receivedChunks(received), cause: error });
  }
  // A gateway reports a failure after the 200 header as an error object inside the stream.
  if (mayBeErrorBody(value) && errorBodySchema.safeParse(value).success) {
    throw errorFromResponse({ body: value, headers: opened.headers, ...(apiKey === undefined ? {} : { apiKey }) });
  }
  if (isChatChunk(value)) return value;
  const parsed = chatChunkSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : ` at ${issue.path.join(".") || "(root)"}: ${issue.message}`;
    throw new StreamError(`Malformed stream event (not a chat chunk${where}): ${redactSecrets(data.slice(0, 120))}`, {
      ...opened.ids,
      partial: receivedChunks(received),
    });
  }
  return parsed.data;
}

function withPartial(error: StreamError, received: string[], ids: GatewayIds): SvcFlowError {
  return new StreamError(error.message, { ...ids, partial: receivedChunks(received), cause: error.cause ?? error });
}
