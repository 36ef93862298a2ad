import { createHash, hash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Duplex } from "node:stream";
import { Dispatcher } from "undici";
import { ID_HEADERS, IDEMPOTENCY_HEADERS } from "../../gateway/wire.js";
import type { CallIntents } from "./call-intents.js";

/** The request header that makes a repeated billable call replay instead of bill again. */
export const IDEMPOTENCY_HEADER = "idempotency-key";

/** The step instance a dispatcher keys calls for: its key's base, the step (`lines[3].line`), and where its intents go. */
export interface CallScope {
  readonly base: string;
  readonly step: string;
  readonly intents?: CallIntents;
}

/**
 * Wraps a dispatcher for one step instance: every POST it sends carries `Idempotency-Key: <base>:<digest>`,
 * the digest being the sha256 of the request's path and body. `base` is the run id and the step's key
 * (map item indexes included), so the same call after a kill and resume sends the same key, whatever
 * order concurrent calls go out in. Retries of a request share its key (a retry after a lost response
 * is replayed, not billed); a fallback model or the next tool-loop turn is a different body, so a new
 * call. Two identical requests in one step share a key too: the gateway answers the second with the
 * first's reply, which is what an identical request asks for. With `call.intents`, each request waits
 * for its intent to be journaled before it goes out, and its answer's request id is noted for the bill
 * (see CallIntents). The step's services make one (the step is known there), so nothing has to find
 * the step through async context on every promise of the run.
 */
export function keyedDispatcher(inner: Dispatcher, call: CallScope): Dispatcher {
  return new KeyedDispatcher(inner, call);
}

// A Dispatcher of its own rather than `inner.compose(...)`: compose hands an interceptor undici's current handler
// API, so every response's headers were parsed into an object for this one look and turned back into buffers for
// the request's own (older API) handler. Here a handler keeps the API it came with and is looked at in it.
class KeyedDispatcher extends Dispatcher {
  readonly #inner: Dispatcher;
  readonly #call: CallScope;
  readonly #base: string;

  constructor(inner: Dispatcher, call: CallScope) {
    super();
    this.#inner = inner;
    this.#call = call;
    this.#base = headerSafe(call.base);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (options.method !== "POST") return this.#inner.dispatch(options, handler);
    const body = typeof options.body === "string" ? options.body : "";
    const digest = hash("sha256", `${options.path}\n${body}`).slice(0, 16);
    const key = `${this.#base}:${digest}`;
    const keyed = { ...options, headers: withHeader(options.headers, key) };
    const intents = this.#call.intents;
    if (intents === undefined) return this.#inner.dispatch(keyed, handler);
    intents
      .sending(this.#call.step, key, options.path, body)
      .then((send) => this.#inner.dispatch(keyed, onAnswer(handler, new AnswerLook(intents, send))))
      // The intent could not be journaled (or the dispatcher refused the request): it fails as a write error would.
      .catch((error: unknown) => failed(handler, error as Error));
    return true;
  }

  // The step's view owns nothing: the run's dispatcher is closed by the run.
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (callback === undefined) return Promise.resolve();
    callback();
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const callback = typeof first === "function" ? first : second;
    if (callback === undefined) return Promise.resolve();
    callback();
  }
}

/** Where the answer to one send is noted: its request id, and whether the gateway said it honours the key. */
class AnswerLook {
  constructor(
    readonly intents: CallIntents,
    readonly send: Awaited<ReturnType<CallIntents["sending"]>>,
  ) {}

  note(requestId: string | undefined, honoured: boolean): void {
    this.intents.answered(this.send, requestId, honoured);
  }
}

// `handler` as it came, with its response head looked at: the request id, and whether the gateway said it honours
// the key (the replay header, whatever its value).
function onAnswer(handler: Dispatcher.DispatchHandler, look: AnswerLook): Dispatcher.DispatchHandler {
  // Undici's request() speaks the older API: raw header names and values, as buffers.
  if (handler.onResponseStart === undefined) return new OlderLookingHandler(handler, look);
  return {
    onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, statusCode, headers, socket) =>
      handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart: (controller, statusCode, headers, statusMessage) => {
      look.note(readHeader(headers, ID_HEADERS.requestId), headers[IDEMPOTENCY_HEADERS.replayed] !== undefined);
      return handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
    },
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
}

// The older API's onConnect as undici calls it: its types leave out the request context it passes on.
type OnConnect = (abort: (error?: Error) => void, context?: unknown) => void;

// Every method of the older API passed on, the response head looked at on the way. A class (one per call in flight)
// rather than an object of closures: only the older API's methods, so undici keeps speaking it.
class OlderLookingHandler implements Dispatcher.DispatchHandler {
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #look: AnswerLook;

  constructor(handler: Dispatcher.DispatchHandler, look: AnswerLook) {
    this.#handler = handler;
    this.#look = look;
  }

  onConnect(abort: (error?: Error) => void, context?: unknown): void {
    (this.#handler.onConnect as OnConnect | undefined)?.call(this.#handler, abort, context);
  }

  onError(error: Error): void {
    this.#handler.onError?.(error);
  }

  onUpgrade(statusCode: number, headers: Buffer[] | string[] | null, socket: Duplex): void {
    this.#handler.onUpgrade?.(statusCode, headers, socket);
  }

  onResponseStarted(): void {
    this.#handler.onResponseStarted?.();
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean {
    lookRaw(headers, this.#look);
    return this.#handler.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
  }

  onData(chunk: Buffer): boolean {
    return this.#handler.onData?.(chunk) ?? true;
  }

  onComplete(trailers: string[] | null): void {
    this.#handler.onComplete?.(trailers);
  }

  onBodySent(chunkSize: number, totalBytesSent: number): void {
    this.#handler.onBodySent?.(chunkSize, totalBytesSent);
  }
}

const REQUEST_ID = ID_HEADERS.requestId.toLowerCase();
const REPLAYED = IDEMPOTENCY_HEADERS.replayed.toLowerCase();

// Raw headers alternate name and value (buffers from undici's own clients); only names of the right length are read.
function lookRaw(headers: ReadonlyArray<Buffer | string>, look: AnswerLook): void {
  let requestId: string | undefined;
  let honoured = false;
  for (let index = 0; index + 1 < headers.length; index += 2) {
    const name = headers[index]!;
    if (name.length === REQUEST_ID.length && requestId === undefined && lower(name) === REQUEST_ID)
      requestId = text(headers[index + 1]!);
    else if (name.length === REPLAYED.length && lower(name) === REPLAYED) honoured = true;
  }
  look.note(requestId, honoured);
}

function lower(name: Buffer | string): string {
  return text(name).toLowerCase();
}

function text(value: Buffer | string): string {
  return typeof value === "string" ? value : value.toString("latin1");
}

function failed(handler: Dispatcher.DispatchHandler, error: Error): void {
  if (handler.onResponseError !== undefined) handler.onResponseError(null as never, error);
  else handler.onError?.(error);
}

function readHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function withHeader(headers: Dispatcher.DispatchOptions["headers"], key: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  if (Array.isArray(headers)) {
    for (let index = 0; index + 1 < headers.length; index += 2)
      result[String(headers[index])] = String(headers[index + 1]);
  } else if (headers != null && typeof headers === "object") {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (value !== undefined) result[name] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  result[IDEMPOTENCY_HEADER] = key;
  return result;
}

// Gateways take 1 to 255 visible ASCII characters. A step key is the run id and step ids (with
// item indexes), any length and any characters, so a base that does not fit goes as its digest:
// still the same for the same step instance, so a resumed call sends the same key.
const MAX_BASE_CHARS = 160;

/** The base of a key as sent: itself when short and visible ASCII, else `h-` and its sha256. */
export function headerSafe(base: string): string {
  if (base.length <= MAX_BASE_CHARS && /^[\x21-\x7e]+$/.test(base)) return base;
  return `h-${createHash("sha256").update(base).digest("hex")}`;
}
