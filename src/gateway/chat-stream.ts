import { StreamError, SvcFlowError, redactSecrets, type GatewayIds } from "../errors.js";
import { errorFromResponse } from "./error-from-response.js";
import { wasReplayed } from "./gateway-ids.js";
import type { OpenResponse } from "./http-transport.js";
import { parseSse } from "./parse-sse.js";
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

  async function* iterate(): AsyncGenerator<ChatChunk> {
    const received: ChatChunk[] = [];
    let finishReason = false;
    let complete = false;
    if (cancelled) return;
    const events = parseSse(opened.body.iterator({ destroyOnReturn: false }))[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next: IteratorResult<{ data: string }>;
        try {
          next = await events.next();
        } catch (error) {
          // The consumer chose to stop: ending quietly is what it asked for.
          if (cancelled) return;
          if (error instanceof StreamError) throw withPartial(error, received, opened.ids);
          throw opened.watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
        }
        // The consumer's own work between chunks must not count against the chunk timeout.
        opened.watchdog.disarm();
        if (next.done === true) break;
        if (cancelled) return;

        const chunk = readChunk(next.value.data, received, opened, apiKey);
        if (chunk.choices.some((choice) => choice.finish_reason != null)) finishReason = true;
        received.push(chunk);
        yield chunk;
        opened.watchdog.arm(chunkTimeoutMs, "the next stream event");
      }
      if (!finishReason) {
        throw new StreamError(
          `The stream from ${opened.url} ended without a finish reason after ${received.length} chunk(s); the reply is incomplete. Retry the request.`,
          { ...opened.ids, partial: received },
        );
      }
      complete = true;
    } finally {
      finish(complete);
    }
  }

  return {
    ids: opened.ids,
    replayed: wasReplayed(opened.headers),
    [Symbol.asyncIterator]() {
      if (started) throw new StreamError("A ChatStream can be iterated only once.", { retryable: false });
      started = true;
      return iterate();
    },
    async cancel() {
      if (done) return;
      cancelled = true;
      opened.watchdog.cancel();
      finish(false);
    },
  };
}

function readChunk(data: string, received: ChatChunk[], opened: OpenResponse, apiKey: string | undefined): ChatChunk {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new StreamError(`Malformed stream event (not JSON): ${redactSecrets(data.slice(0, 120))}`, { ...opened.ids, partial: received, cause: error });
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
      partial: received,
    });
  }
  return parsed.data;
}

function withPartial(error: StreamError, received: ChatChunk[], ids: GatewayIds): SvcFlowError {
  return new StreamError(error.message, { ...ids, partial: received, cause: error.cause ?? error });
}
