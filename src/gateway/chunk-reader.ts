import { StreamError, SvcFlowError, redactSecrets, type GatewayIds } from "../errors.js";
import { ArgumentsDelta } from "./arguments-delta.js";
import type { ChatStreamOptions, ChunkSource } from "./chat-stream.js";
import { errorFromResponse } from "./error-from-response.js";
import type { OpenResponse } from "./http-transport.js";
import { SseDecoder, type SseEvent } from "./parse-sse.js";
import { TextDeltaShape } from "./text-delta-shape.js";
import { chatChunkSchema, errorBodySchema, type ChatChunk } from "./wire.js";
import { isChatChunk, mayBeErrorBody } from "./wire-guards.js";

/**
 * Reads the chunks of an open `text/event-stream` response: the pull interface under a ChatStream.
 * A class, not closures: a stream's state then lives in one object, where closures cost a context
 * and a function each, and under tsx (esbuild keepNames) a named one also an
 * Object.defineProperty of its name (~0.4 us, and the function turned into a dictionary).
 */
export class ChunkReader implements ChunkSource {
  readonly #opened: OpenResponse;
  readonly #chunkTimeoutMs: number;
  readonly #apiKey: string | undefined;
  readonly #keepPartial: boolean;
  readonly #sse = new SseDecoder();
  // The events' text, for the partial of an error (the parsed chunks would cost the collector
  // more, and an error is rare); empty unless keepPartial.
  readonly #received: string[] = [];
  #count = 0;
  #body: AsyncIterator<unknown> | undefined;
  // The last event, when the body ended without its blank line.
  #tail: SseEvent[] = [];
  // Made at the first chunk taken for its text: see takeDelta.
  #shape: TextDeltaShape | undefined;
  #done = false;
  #cancelled = false;
  #ended = false;
  #finishReason = false;
  // The first wait is the first-byte timer's, armed when the request was sent.
  #armed = true;

  constructor(opened: OpenResponse, options: ChatStreamOptions) {
    this.#opened = opened;
    this.#chunkTimeoutMs = options.chunkTimeoutMs;
    this.#apiKey = options.apiKey;
    this.#keepPartial = options.keepPartial ?? true;
  }

  take(): ChatChunk | undefined {
    return this.#next(false) as ChatChunk | undefined;
  }

  takeDelta(): ChatChunk | string | ArgumentsDelta | undefined {
    return this.#next(true);
  }

  async read(): Promise<boolean> {
    if (this.#done) return false;
    const opened = this.#opened;
    try {
      if (!this.#sse.done && !this.#ended) {
        if (!this.#armed) opened.watchdog.arm(this.#chunkTimeoutMs, "the next stream event");
        this.#armed = true;
        this.#body ??= opened.body.iterator({ destroyOnReturn: false });
        let next: IteratorResult<unknown>;
        try {
          next = await this.#body.next();
        } catch (error) {
          // The consumer chose to stop: ending quietly is what it asked for.
          if (this.#cancelled) return false;
          throw opened.watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
        }
        if (this.#cancelled) return false;
        try {
          if (next.done === true) {
            this.#ended = true;
            this.#tail = this.#sse.end();
          } else this.#sse.push(next.value as Buffer);
        } catch (error) {
          throw error instanceof StreamError ? withPartial(error, this.#received, opened.ids) : error;
        }
        return true;
      }
      if (!this.#finishReason) {
        throw new StreamError(
          `The stream from ${opened.url} ended without a finish reason after ${this.#count} chunk(s); the reply is incomplete. Retry the request.`,
          { ...opened.ids, partial: receivedChunks(this.#received) },
        );
      }
      this.#finish(true);
      return false;
    } catch (error) {
      this.#finish(false);
      throw error;
    }
  }

  async cancel(): Promise<void> {
    if (this.#done) return;
    this.#cancelled = true;
    this.#opened.watchdog.cancel();
    this.#finish(false);
  }

  #next(delta: boolean): ChatChunk | string | ArgumentsDelta | undefined {
    if (this.#done) return undefined;
    const opened = this.#opened;
    try {
      let event: SseEvent | undefined;
      try {
        event = this.#sse.take() ?? this.#tail.shift();
      } catch (error) {
        throw error instanceof StreamError ? withPartial(error, this.#received, opened.ids) : error;
      }
      if (event === undefined) return undefined;
      // The timer runs from the last event, so keep-alive comments cannot hide a stalled stream;
      // it is stopped while the consumer works on the chunk.
      if (this.#armed) {
        opened.watchdog.disarm();
        this.#armed = false;
      }
      const data = event.data;
      const text = delta ? this.#shape?.match(data) : undefined;
      let chunk: ChatChunk | undefined;
      if (text === undefined) {
        chunk = readChunk(data, this.#received, opened, this.#apiKey);
        if (hasFinishReason(chunk)) this.#finishReason = true;
        if (delta) (this.#shape ??= new TextDeltaShape()).learn(data, chunk);
      }
      this.#count++;
      if (this.#keepPartial) this.#received.push(data);
      if (chunk !== undefined) return chunk;
      const toolIndex = this.#shape!.toolIndex;
      return toolIndex === undefined ? text : new ArgumentsDelta(toolIndex, text!);
    } catch (error) {
      this.#finish(false);
      throw error;
    }
  }

  #finish(complete: boolean): void {
    this.#done = true;
    const { watchdog, body } = this.#opened;
    watchdog.release();
    if (body.destroyed) return;
    // Destroying emits "error" on the body, which nobody reads any more.
    body.on("error", ignore);
    // A stream read to its end hands its socket back to the pool; anything else closes it.
    if (complete) body.dump({ limit: 64 * 1024 }).catch(ignore);
    else body.destroy();
  }
}

function ignore(): void {}

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
