import { StreamError, SvcFlowError, redactSecrets, type GatewayIds } from "../errors.js";
import { errorFromResponse } from "./error-from-response.js";
import { wasReplayed } from "./gateway-ids.js";
import type { OpenResponse } from "./http-transport.js";
import { SseDecoder, type SseEvent } from "./parse-sse.js";
import { chatChunkSchema, errorBodySchema, type ChatChunk } from "./wire.js";
import { isChatChunk, mayBeErrorBody } from "./wire-guards.js";

/**
 * A streamed chat completion: iterate it once for its chunks. Iterating throws StreamError
 * (malformed event, or ended without a finish reason; `partial` holds the chunks that came),
 * TimeoutError (no event in time), UpstreamError (connection cut), AbortedError (signal).
 */
export interface ChatStream extends AsyncIterable<ChatChunk> {
  /** The ids of the response headers. */
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored stream for the call's idempotency key (billed once,
   * earlier); absent means false. */
  readonly replayed?: boolean;
  /** The next chunks, grouped as they arrived (all those of one network read, at least one), or
   * undefined at the end. A busy reader pays one await per read instead of one per chunk, and
   * holds no chunk longer than it wants to. Read the stream this way or by iterating, not both;
   * a reader that stops before the end calls `cancel()`. */
  nextBatch(): Promise<ChatChunk[] | undefined>;
  /** Like nextBatch, but hands each chunk of the next network read to `visit` as it is parsed, and
   * resolves to false at the end. A reader that keeps only what it makes of the chunks holds no
   * chunk past the read: a batch of parsed chunks kept while its consumer works through it
   * outlives young-generation GCs when many streams are read at once. */
  nextRead(visit: (chunk: ChatChunk) => void): Promise<boolean>;
  /** Stops the stream and frees its connection; safe to call at any time, also after the end. */
  cancel(): Promise<void>;
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
  const { chunkTimeoutMs, apiKey } = options;
  const keepPartial = options.keepPartial ?? true;
  let started = false;
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
  let finishReason = false;
  // The first wait is the first-byte timer's, armed when the request was sent.
  let armed = true;
  // An error found after good chunks of the same read: thrown once those have been handed over.
  let failure: unknown;

  async function nextRead(visit: (chunk: ChatChunk) => void): Promise<boolean> {
    if (failure !== undefined) {
      const error = failure;
      failure = undefined;
      finish(false);
      throw error;
    }
    if (done || cancelled) return false;
    try {
      body ??= opened.body.iterator({ destroyOnReturn: false });
      while (!sse.done) {
        const events = await readEvents(body);
        if (events === undefined) return false;
        let visited = 0;
        for (const event of events) {
          let chunk: ChatChunk;
          try {
            chunk = readChunk(event.data, received, opened, apiKey);
          } catch (error) {
            if (visited === 0) throw error;
            failure = error;
            break;
          }
          if (hasFinishReason(chunk)) finishReason = true;
          count++;
          if (keepPartial) received.push(event.data);
          visited++;
          visit(chunk);
        }
        if (visited > 0) return true;
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
  }

  const nextBatch = (): Promise<ChatChunk[] | undefined> => batchOf(nextRead);

  // The events of the next network read; undefined when the consumer cancelled meanwhile.
  async function readEvents(source: AsyncIterator<unknown>): Promise<SseEvent[] | undefined> {
    try {
      // The timer runs from the last event, so keep-alive comments cannot hide a stalled
      // stream; it is stopped while the consumer works on the events.
      if (!armed) opened.watchdog.arm(chunkTimeoutMs, "the next stream event");
      armed = true;
      const next = await source.next();
      if (cancelled) return undefined;
      const events = next.done === true ? sse.end() : sse.feed(next.value as Buffer);
      if (events.length > 0) {
        opened.watchdog.disarm();
        armed = false;
      }
      return events;
    } catch (error) {
      // The consumer chose to stop: ending quietly is what it asked for.
      if (cancelled) return undefined;
      if (error instanceof StreamError) throw withPartial(error, received, opened.ids);
      throw opened.watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
    }
  }

  const cancel = async (): Promise<void> => {
    if (done) return;
    cancelled = true;
    opened.watchdog.cancel();
    finish(false);
  };

  return {
    ids: opened.ids,
    replayed: wasReplayed(opened.headers),
    nextBatch,
    nextRead,
    [Symbol.asyncIterator]() {
      if (started) throw new StreamError("A ChatStream can be iterated only once.", { retryable: false });
      started = true;
      return chunksOf({ nextBatch, cancel });
    },
    cancel,
  };
}

/** nextBatch made of nextRead: the next read's chunks gathered, or undefined at the end. */
export async function batchOf(nextRead: ChatStream["nextRead"]): Promise<ChatChunk[] | undefined> {
  const chunks: ChatChunk[] = [];
  return (await nextRead((chunk) => chunks.push(chunk))) ? chunks : undefined;
}

/** A stream's chunks one by one; leaving early cancels it. */
export async function* chunksOf(stream: Pick<ChatStream, "nextBatch" | "cancel">): AsyncGenerator<ChatChunk> {
  let ended = false;
  try {
    for (let batch = await stream.nextBatch(); batch !== undefined; batch = await stream.nextBatch()) {
      for (const chunk of batch) yield chunk;
    }
    ended = true;
  } finally {
    if (!ended) await stream.cancel();
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
