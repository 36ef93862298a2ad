import { StreamError, TimeoutError, type SvcFlowError, redactSecrets, type GatewayIds } from "../errors.js";
import { bodyKind, type BodyKind } from "./body-kind.js";
import { errorFromResponse } from "./error-from-response.js";
import type { OpenResponse } from "./http-transport.js";
import { DONE_MARKER, SseDecoder } from "./parse-sse.js";
import { StreamEnding, failedFinishBody, failedFinishReason } from "./stream-ending.js";
import { chatChunkSchema, errorBodySchema, type ChatChunk } from "./wire.js";
import { wholeBodyChunks } from "./whole-body-chunks.js";
import { isChatChunk, mayBeErrorBody } from "./wire-guards.js";

// After a finish reason only usage and [DONE] may follow, and some servers send neither and keep the
// connection open (musistudio/claude-code-router PR #1271, maximhq/bifrost#6784): the wait for them
// is shorter, and its end ends the stream, instead of a chunk timeout turning the reply into an error.
// Not much shorter: some servers put a finish reason on chunks before the last (open-webui#16377),
// and a pause after one must not cut the text that follows.
const FINISHED_GRACE_MS = 5_000;

/** How the chunks of a stream are read: the chunk timeout, the key to keep out of errors, and
 * whether to keep the chunks for a StreamError's `partial`. */
export interface ChunkReaderOptions {
  readonly chunkTimeoutMs: number;
  readonly apiKey?: string;
  readonly keepPartial?: boolean;
}

/**
 * The one read path of a streamed chat completion: the body's bytes through the SSE parser, each
 * event checked as a chat chunk (or thrown as the error a gateway sent inside a 200 stream). Each
 * `read` waits for the next piece of the body and returns the chunks it completed, so a reply that
 * arrives in a few pieces costs a few waits, not one per chunk. The chunk timeout runs while
 * waiting for bytes and stops while the consumer works, so keep-alive comments cannot hide a
 * stalled stream. A stream read to its end hands its socket back to the pool; one closed early,
 * cancelled or failed closes it. What the body holds is told by its first bytes, not its content
 * type: a whole JSON body (or a page) is read whole and stands for the chunks it carries.
 */
export class ChunkReader {
  readonly #opened: OpenResponse;
  readonly #options: ChunkReaderOptions;
  readonly #cancelled: () => boolean;
  readonly #sse = new SseDecoder();
  readonly #pieces: AsyncIterator<unknown>;
  readonly #ending = new StreamEnding();
  // The events' text, for the partial of an error; empty unless keepPartial.
  readonly #received: string[] = [];
  readonly #keepPartial: boolean;
  #count = 0;
  // Undefined until the first bytes that are not whitespace came; they are held in #head till then.
  #kind: BodyKind | undefined;
  #head: Buffer[] = [];
  // The chunks a whole body stands for, once read.
  #whole: ChatChunk[] | undefined;
  // The first wait is the first-byte timer's, armed when the request was sent.
  #armed = true;
  #over = false;
  #complete = false;
  #closed = false;

  constructor(opened: OpenResponse, options: ChunkReaderOptions, cancelled: () => boolean) {
    this.#opened = opened;
    this.#options = options;
    this.#cancelled = cancelled;
    this.#keepPartial = options.keepPartial ?? true;
    this.#pieces = opened.body.iterator({ destroyOnReturn: false });
  }

  /** The chunks completed by the next piece of the body (at least one), or undefined once the
   * stream has ended (or was cancelled). Throws the stream's failure; the reader is closed then. */
  async read(): Promise<ChatChunk[] | undefined> {
    if (this.#over) return undefined;
    const chunks: ChatChunk[] = [];
    try {
      for (;;) {
        if (this.#whole !== undefined) return this.#endWhole(this.#whole);
        for (let data = this.#takeData(); data !== undefined; data = this.#takeData()) this.#add(data, chunks);
        if (chunks.length > 0) return chunks;
        if (this.#sse.done) return this.#end();
        const piece = await this.#nextPiece();
        if (piece !== undefined) {
          if (this.#kind === "events") this.#withPartial(() => this.#sse.push(piece as Buffer));
          else await this.#sniff(piece as Buffer);
          continue;
        }
        if (this.#cancelled()) {
          // The consumer chose to stop: ending quietly is what it asked for.
          this.close();
          return undefined;
        }
        // A body of whitespace only ends as an empty stream.
        for (const held of this.#head) this.#withPartial(() => this.#sse.push(held));
        for (const event of this.#withPartial(() => this.#sse.end())) this.#add(event.data, chunks);
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Reads until the first bytes tell what the body holds; a whole body is then read and checked,
   * and what it stands for (its reply, or the error it carries) comes out here. Throws as `read`. */
  async start(): Promise<void> {
    try {
      while (this.#kind === undefined) {
        const piece = await this.#nextPiece();
        // An empty body, or a cancel: `read` says which.
        if (piece === undefined) return;
        await this.#sniff(piece as Buffer);
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  // Holds the body's first pieces until one says what the body is: events go to the parser, anything
  // else is read whole.
  async #sniff(piece: Buffer): Promise<void> {
    this.#head.push(piece);
    const kind = bodyKind(this.#head);
    if (kind === undefined) return;
    // Bytes that are neither JSON nor a page go to the parser, which says what is wrong with them.
    this.#kind = kind === "other" ? "events" : kind;
    if (this.#kind === "events") {
      for (const held of this.#head) this.#withPartial(() => this.#sse.push(held));
      this.#head = [];
      return;
    }
    for (let next = await this.#nextPiece(); next !== undefined; next = await this.#nextPiece())
      this.#head.push(next as Buffer);
    if (this.#cancelled()) return;
    const text = Buffer.concat(this.#head).toString("utf8");
    this.#head = [];
    this.#whole = wholeBodyChunks(text, this.#opened, this.#options.apiKey);
  }

  #endWhole(chunks: ChatChunk[]): ChatChunk[] {
    this.#complete = true;
    this.close();
    return chunks;
  }

  /** Stops reading: a stream read to its end leaves its socket to the pool, any other is cut. */
  close(): void {
    if (this.#closed) return;
    this.#closed = this.#over = true;
    const { watchdog, body } = this.#opened;
    watchdog.release();
    if (body.destroyed) return;
    // Destroying emits "error" on the body, which nobody reads any more.
    body.on("error", ignore);
    if (this.#complete && body.dump !== undefined) body.dump({ limit: 64 * 1024 }).catch(ignore);
    else body.destroy();
  }

  /** The next piece of the body; undefined when it ended or the consumer cancelled. */
  async #nextPiece(): Promise<unknown> {
    const { watchdog } = this.#opened;
    const finished = this.#ending.finished;
    if (!this.#armed) {
      const { chunkTimeoutMs } = this.#options;
      if (finished) watchdog.arm(Math.min(FINISHED_GRACE_MS, chunkTimeoutMs), "the end of a finished stream");
      else watchdog.arm(chunkTimeoutMs, "the next stream event");
    }
    this.#armed = true;
    let next: IteratorResult<unknown>;
    try {
      next = await this.#pieces.next();
    } catch (error) {
      if (this.#cancelled()) return undefined;
      const failure = watchdog.failure(error, { url: this.#opened.url, responseStarted: true, ...this.#opened.ids });
      // A finished reply whose server neither ends the stream nor sends more is complete all the same.
      if (finished && failure instanceof TimeoutError) return undefined;
      throw failure;
    }
    return next.done === true || this.#cancelled() ? undefined : next.value;
  }

  #takeData(): string | undefined {
    let data = this.#withPartial(() => this.#sse.take())?.data;
    // Like comments, heartbeat events do not count as the stream moving.
    while (data !== undefined && isHeartbeat(data)) data = this.#withPartial(() => this.#sse.take())?.data;
    if (data !== undefined && this.#armed) {
      this.#opened.watchdog.disarm();
      this.#armed = false;
    }
    return data;
  }

  #add(data: string, chunks: ChatChunk[]): void {
    const events = data.includes("\n") ? runTogether(data) : undefined;
    if (events !== undefined) {
      for (const event of events) this.#add(event, chunks);
      return;
    }
    const chunk = readChunk(data, this.#received, this.#opened, this.#options.apiKey);
    this.#ending.see(chunk);
    this.#count++;
    if (this.#keepPartial) this.#received.push(data);
    chunks.push(chunk);
  }

  // Here the stream ended at `[DONE]` or with a clean close (a cut connection threw before).
  #end(): ChatChunk[] | undefined {
    const ending = this.#ending;
    const closing = ending.finished ? undefined : ending.closingChunk();
    if (ending.cutShort) {
      throw new StreamError(
        `The stream from ${this.#opened.url} ended without a finish reason after ${this.#count} chunk(s) that said "finish_reason": null: the upstream failed and the relay closed the stream as if complete. The reply is incomplete; retry the request.`,
        { ...this.#opened.ids, partial: receivedChunks(this.#received) },
      );
    }
    if (!ending.finished && closing === undefined) {
      throw new StreamError(
        `The stream from ${this.#opened.url} ended without a finish reason or any output after ${this.#count} chunk(s); the reply is incomplete. Retry the request.`,
        { ...this.#opened.ids, partial: receivedChunks(this.#received) },
      );
    }
    this.#complete = true;
    this.close();
    return closing === undefined ? undefined : [closing];
  }

  // The SSE parser's errors, with the chunks that came before them.
  #withPartial<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      throw error instanceof StreamError ? withPartial(error, this.#received, this.#opened.ids) : error;
    }
  }
}

function ignore(): void {}

// Some servers end an event with one line break instead of two (a Baseten GLM endpoint in
// anomalyco/opencode#27365), so several chunks arrive as the data lines of one event. Data that is
// one JSON document across lines is one event, as the SSE rules say; data whose every line is a
// JSON document is those events.
function runTogether(data: string): string[] | undefined {
  if (isJson(data)) return undefined;
  // The marker that ends the stream may be run in too; the stream ends when its body does.
  const lines = data.split("\n").filter((line) => line.trim() !== "" && line.trim() !== DONE_MARKER);
  return lines.length > 0 && lines.every(isJson) ? lines : undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Keep-alive events that carry no chunk: `{}`, the `{"type": "ping"}` of Anthropic's OpenAI-compatible
// layer (anthropics/anthropic-sdk-typescript#734, openai-php/client PR #556), and a comment a proxy
// passed on as data (`data: : OPENROUTER PROCESSING`, mnfst/llm-gateway#2053).
const HEARTBEAT = /^\s*(?:\{\s*(?:"type"\s*:\s*"[\w.-]*"\s*)?\}\s*|:.*)$/;

function isHeartbeat(data: string): boolean {
  return data.length <= 64 && HEARTBEAT.test(data);
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
