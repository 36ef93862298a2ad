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
  /** The same chunks, grouped as they arrived: all the chunks of one network read in one array.
   * A busy reader pays one await per read instead of one per chunk. Iterate the stream either
   * way, once. */
  batches(): AsyncGenerator<ChatChunk[]>;
  /** Stops the stream and frees its connection; safe to call at any time, also after the end. */
  cancel(): Promise<void>;
}

/** Wraps an open `text/event-stream` response as a ChatStream. */
export function createChatStream(opened: OpenResponse, chunkTimeoutMs: number, apiKey?: string): ChatStream {
  let started = false;
  let done = false;
  let cancelled = false;
  const finish = (complete: boolean): void => {
    done = true;
    opened.watchdog.disarm();
    if (opened.body.destroyed) return;
    // Destroying emits "error" on the body, which nobody reads any more.
    opened.body.on("error", () => undefined);
    // A stream read to its end hands its socket back to the pool; anything else closes it.
    if (complete) opened.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    else opened.body.destroy();
  };

  async function* batches(): AsyncGenerator<ChatChunk[]> {
    // The events' text, for the partial of an error: strings cost the collector far less than
    // the parsed chunks would, and an error is rare.
    const received: string[] = [];
    let finishReason = false;
    let complete = false;
    if (cancelled) return;
    const body = opened.body.iterator({ destroyOnReturn: false });
    const sse = new SseDecoder();
    // The first wait is the first-byte timer's, armed when the request was sent.
    let armed = true;
    try {
      while (!sse.done) {
        let events: SseEvent[];
        try {
          // The timer runs from the last event, so keep-alive comments cannot hide a stalled
          // stream; it is stopped while the consumer works on the events.
          if (!armed) opened.watchdog.arm(chunkTimeoutMs, "the next stream event");
          armed = true;
          const next = await body.next();
          events = next.done === true ? sse.end() : sse.feed(next.value as Buffer);
          if (events.length > 0) {
            opened.watchdog.disarm();
            armed = false;
          }
        } catch (error) {
          // The consumer chose to stop: ending quietly is what it asked for.
          if (cancelled) return;
          if (error instanceof StreamError) throw withPartial(error, received, opened.ids);
          throw opened.watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
        }
        if (cancelled) return;
        const chunks: ChatChunk[] = [];
        try {
          for (const event of events) {
            const chunk = readChunk(event.data, received, opened, apiKey);
            if (hasFinishReason(chunk)) finishReason = true;
            received.push(event.data);
            chunks.push(chunk);
          }
        } catch (error) {
          // The good chunks before a bad one are delivered before its error, as they came.
          if (chunks.length > 0) yield chunks;
          throw error;
        }
        if (chunks.length > 0) yield chunks;
      }
      if (!finishReason) {
        throw new StreamError(
          `The stream from ${opened.url} ended without a finish reason after ${received.length} chunk(s); the reply is incomplete. Retry the request.`,
          { ...opened.ids, partial: receivedChunks(received) },
        );
      }
      complete = true;
    } finally {
      finish(complete);
    }
  }

  const once = (): AsyncGenerator<ChatChunk[]> => {
    if (started) throw new StreamError("A ChatStream can be iterated only once.", { retryable: false });
    started = true;
    return batches();
  };

  return {
    ids: opened.ids,
    replayed: wasReplayed(opened.headers),
    batches: once,
    [Symbol.asyncIterator]: () => flatten(once()),
    async cancel() {
      if (done) return;
      cancelled = true;
      opened.watchdog.cancel();
      finish(false);
    },
  };
}

/** The chunks of the batches, one by one. */
export async function* flatten<T>(batches: AsyncGenerator<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) for (const item of batch) yield item;
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
