import { StreamError, type GatewayIds } from "../errors.js";
import { ChunkReader, type ChunkReaderOptions } from "./chunk-reader.js";
import { wasReplayed } from "./gateway-ids.js";
import type { OpenResponse } from "./http-transport.js";
import type { ChatChunk } from "./wire.js";

/**
 * A streamed chat completion: iterate it once for its chunks, or call `read` for them piece by
 * piece (the same path; use one or the other). Reading throws StreamError (malformed event, or
 * ended without a finish reason; `partial` holds the chunks that came), TimeoutError (no event in
 * time), UpstreamError (connection cut), AbortedError (signal), or the typed error a gateway sent
 * inside the stream. A reader that stops early leaves the loop (or calls `cancel()`), which closes
 * the connection.
 */
export interface ChatStream extends AsyncIterable<ChatChunk> {
  /** The ids of the response headers. */
  readonly ids: GatewayIds;
  /** True when the gateway replayed a stored stream for the call's idempotency key (billed once,
   * earlier). */
  readonly replayed: boolean;
  /** The chunks the next piece of the body completed (at least one), or undefined once the stream
   * has ended or was cancelled. */
  read(): Promise<readonly ChatChunk[] | undefined>;
  /** Stops the stream and frees its connection; safe to call at any time, also after the end. */
  cancel(): Promise<void>;
}

/** Where a ChatStream's chunks come from: `read` as ChatStream's, `close` stops reading. */
export interface ChunkSource {
  read(): Promise<readonly ChatChunk[] | undefined>;
  close(): void;
}

/** Wraps an open response to a stream request as a ChatStream. Unless its content type says event
 * stream, the body's first bytes are awaited first: a whole JSON body (a relay's error, or a reply
 * that ignored `stream: true`) is read then, so its error rejects here, as an error status would. */
export async function createChatStream(opened: OpenResponse, options: ChunkReaderOptions): Promise<ChatStream> {
  let cancelled = false;
  const reader = new ChunkReader(opened, options, () => cancelled);
  if (!isEventStream(opened.headers)) await reader.start();
  return chatStreamOf(reader, opened, () => {
    cancelled = true;
    // Aborting the request ends a read in progress; the reader then closes the body quietly.
    opened.watchdog.cancel();
    if (!opened.body.destroyed) opened.body.on("error", () => undefined).destroy();
  });
}

/** True when the response's content type says event stream. */
export function isEventStream(headers: OpenResponse["headers"]): boolean {
  return /text\/event-stream/i.test(String(headers["content-type"] ?? ""));
}

/** Chunks read from a source as a ChatStream; `stop` ends a read in progress when it is cancelled. */
export function chatStreamOf(
  source: ChunkSource,
  opened: Pick<OpenResponse, "ids" | "headers">,
  stop: () => void = () => undefined,
): ChatStream {
  let iterated = false;
  let cancelled = false;
  return {
    ids: opened.ids,
    replayed: wasReplayed(opened.headers),
    read: () => source.read(),
    [Symbol.asyncIterator]() {
      if (iterated) throw new StreamError("A ChatStream can be iterated only once.", { retryable: false });
      iterated = true;
      return chunksOf(source);
    },
    async cancel() {
      if (cancelled) return;
      cancelled = true;
      stop();
      source.close();
    },
  };
}

async function* chunksOf(source: ChunkSource): AsyncGenerator<ChatChunk> {
  try {
    for (let chunks = await source.read(); chunks !== undefined; chunks = await source.read()) {
      for (const chunk of chunks) yield chunk;
    }
  } finally {
    source.close();
  }
}

/** A source that holds its chunks already (a reply that came whole). */
export function chunksSource(chunks: readonly ChatChunk[]): ChunkSource {
  let left: readonly ChatChunk[] | undefined = chunks;
  return {
    read: async () => {
      const taken = left;
      left = undefined;
      return taken;
    },
    close: () => {
      left = undefined;
    },
  };
}
