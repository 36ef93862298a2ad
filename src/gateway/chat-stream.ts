import { StreamError, type GatewayIds } from "../errors.js";
import { readChatChunks, type ChunkReaderOptions } from "./chunk-reader.js";
import { wasReplayed } from "./gateway-ids.js";
import type { OpenResponse } from "./http-transport.js";
import type { ChatChunk } from "./wire.js";

/**
 * A streamed chat completion: iterate it once for its chunks. Iterating throws StreamError
 * (malformed event, or ended without a finish reason; `partial` holds the chunks that came),
 * TimeoutError (no event in time), UpstreamError (connection cut), AbortedError (signal), or the
 * typed error a gateway sent inside the stream. A reader that stops early leaves the loop (or
 * calls `cancel()`), which closes the connection.
 */
export interface ChatStream extends AsyncIterable<ChatChunk> {
  /** The ids of the response headers. */
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored stream for the call's idempotency key (billed once,
   * earlier). */
  readonly replayed: boolean;
  /** Stops the stream and frees its connection; safe to call at any time, also after the end. */
  cancel(): Promise<void>;
}

/** Wraps an open `text/event-stream` response as a ChatStream. */
export function createChatStream(opened: OpenResponse, options: ChunkReaderOptions): ChatStream {
  let cancelled = false;
  const chunks = readChatChunks(opened, options, () => cancelled);
  return chatStreamOf(chunks, opened, () => {
    cancelled = true;
    // Aborting the request ends a read in progress; the reader then closes the body quietly.
    opened.watchdog.cancel();
    if (!opened.body.destroyed) opened.body.on("error", () => undefined).destroy();
  });
}

/** Chunks read from a response as a ChatStream; `stop` ends the reading when it is cancelled. */
export function chatStreamOf(
  chunks: AsyncGenerator<ChatChunk>,
  opened: Pick<OpenResponse, "ids" | "headers">,
  stop: () => void = () => undefined,
): ChatStream {
  let iterated = false;
  let cancelled = false;
  return {
    ids: opened.ids,
    replayed: wasReplayed(opened.headers),
    [Symbol.asyncIterator]() {
      if (iterated) throw new StreamError("A ChatStream can be iterated only once.", { retryable: false });
      iterated = true;
      return chunks;
    },
    async cancel() {
      if (cancelled) return;
      cancelled = true;
      stop();
      await chunks.return(undefined);
    },
  };
}
