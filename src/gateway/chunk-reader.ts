import { StreamError, type SvcFlowError, redactSecrets, type GatewayIds } from "../errors.js";
import { errorFromResponse } from "./error-from-response.js";
import type { OpenResponse } from "./http-transport.js";
import { SseDecoder } from "./parse-sse.js";
import { StreamEnding, failedFinishBody, failedFinishReason } from "./stream-ending.js";
import { chatChunkSchema, errorBodySchema, type ChatChunk } from "./wire.js";
import { isChatChunk, mayBeErrorBody } from "./wire-guards.js";

/** How the chunks of a stream are read: the chunk timeout, the key to keep out of errors, and
 * whether to keep the chunks for a StreamError's `partial`. */
export interface ChunkReaderOptions {
  readonly chunkTimeoutMs: number;
  readonly apiKey?: string;
  readonly keepPartial?: boolean;
}

/**
 * The one read path of a streamed chat completion: the body's bytes through the SSE parser, each
 * event checked as a chat chunk (or thrown as the error a gateway sent inside a 200 stream). The
 * chunk timeout runs while waiting for bytes and stops while the consumer works on a chunk, so
 * keep-alive comments cannot hide a stalled stream. A stream read to its end hands its socket
 * back to the pool; one left early, cancelled or failed closes it.
 */
export async function* readChatChunks(
  opened: OpenResponse,
  options: ChunkReaderOptions,
  cancelled: () => boolean,
): AsyncGenerator<ChatChunk> {
  const { watchdog, body } = opened;
  const keepPartial = options.keepPartial ?? true;
  const sse = new SseDecoder();
  // The events' text, for the partial of an error; empty unless keepPartial.
  const received: string[] = [];
  let count = 0;
  const ending = new StreamEnding();
  let complete = false;
  // The first wait is the first-byte timer's, armed when the request was sent.
  let armed = true;
  try {
    const iterator = body.iterator({ destroyOnReturn: false });
    for (;;) {
      for (
        let event = takeEvent(sse, received, opened.ids);
        event !== undefined;
        event = takeEvent(sse, received, opened.ids)
      ) {
        if (armed) {
          watchdog.disarm();
          armed = false;
        }
        const chunk = readChunk(event, received, opened, options.apiKey);
        ending.see(chunk);
        count++;
        if (keepPartial) received.push(event);
        yield chunk;
      }
      if (sse.done) break;
      if (!armed) watchdog.arm(options.chunkTimeoutMs, "the next stream event");
      armed = true;
      let next: IteratorResult<unknown>;
      try {
        next = await iterator.next();
      } catch (error) {
        // The consumer chose to stop: ending quietly is what it asked for.
        if (cancelled()) return;
        throw watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
      }
      if (cancelled()) return;
      if (next.done === true) {
        for (const event of withPartialOnError(() => sse.end(), received, opened.ids)) {
          const chunk = readChunk(event.data, received, opened, options.apiKey);
          ending.see(chunk);
          count++;
          if (keepPartial) received.push(event.data);
          yield chunk;
        }
        break;
      }
      withPartialOnError(() => sse.push(next.value as Buffer), received, opened.ids);
    }
    // Here the stream ended at `[DONE]` or with a clean close (a cut connection threw above).
    if (!ending.finished) {
      const closing = ending.closingChunk();
      if (closing === undefined) {
        throw new StreamError(
          `The stream from ${opened.url} ended without a finish reason or any output after ${count} chunk(s); the reply is incomplete. Retry the request.`,
          { ...opened.ids, partial: receivedChunks(received) },
        );
      }
      complete = true;
      yield closing;
    }
    complete = true;
  } finally {
    watchdog.release();
    if (!body.destroyed) {
      // Destroying emits "error" on the body, which nobody reads any more.
      body.on("error", ignore);
      if (complete) body.dump({ limit: 64 * 1024 }).catch(ignore);
      else body.destroy();
    }
  }
}

function ignore(): void {}

function takeEvent(sse: SseDecoder, received: string[], ids: GatewayIds): string | undefined {
  return withPartialOnError(() => sse.take(), received, ids)?.data;
}

function withPartialOnError<T>(step: () => T, received: string[], ids: GatewayIds): T {
  try {
    return step();
  } catch (error) {
    throw error instanceof StreamError ? withPartial(error, received, ids) : error;
  }
}

/** The chunks that arrived before a failure (each one was checked when it came). */
function receivedChunks(received: readonly string[]): ChatChunk[] {
  return received.map((data) => JSON.parse(data) as ChatChunk);
}

/** One event's data as a chat chunk; a gateway's error sent inside the stream is thrown as the
 * typed error it stands for, anything else unreadable as a StreamError quoting what came. */
export function readChunk(
  data: string,
  received: string[],
  opened: OpenResponse,
  apiKey: string | undefined,
): ChatChunk {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new StreamError(`Malformed stream event (not JSON): ${redactSecrets(data.slice(0, 120))}`, {
      ...opened.ids,
      partial: receivedChunks(received),
      cause: error,
    });
  }
  // A gateway reports a failure after the 200 header as an error object inside the stream.
  if (mayBeErrorBody(value) && errorBodySchema.safeParse(value).success) {
    throw errorFromResponse({ body: value, headers: opened.headers, ...(apiKey === undefined ? {} : { apiKey }) });
  }
  const chunk = isChatChunk(value) ? value : parseChunk(value, data, received, opened);
  const failed = failedFinishReason(chunk.choices);
  if (failed !== undefined) throw errorFromResponse({ body: failedFinishBody(failed), headers: opened.headers });
  return chunk;
}

function parseChunk(value: unknown, data: string, received: string[], opened: OpenResponse): ChatChunk {
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
