import { EventEmitter } from "node:events";
import { AbortedError, TimeoutError, type SvcFlowError } from "../errors.js";
import { errorFromNetwork, type NetworkContext } from "./error-from-network.js";
import { onAbort } from "./on-abort.js";
import { toAbortedError } from "./to-aborted-error.js";

/** What a body-destroying stop needs of the response body. */
interface Body {
  readonly destroyed: boolean;
  destroy(error?: Error): unknown;
}

/** The two limits undici enforces itself for a body read whole (see HttpTransport). */
export interface LibraryTimeouts {
  readonly firstByteTimeoutMs: number;
  readonly chunkTimeoutMs: number;
}

/** What a request waits for between body chunks, as timeout messages say it. */
export const WAITING_FOR_CHUNK = "the next chunk of the response body";

/**
 * One request's deadline and cancellation: a restartable timer (connect/first byte, then between
 * chunks) and the caller's signal merged into the one signal given to undici. After a failure it
 * tells which of the three it was, since undici only reports "aborted" or a socket error.
 *
 * For a body read whole, undici runs both timers itself (`headersTimeout`, `bodyTimeout`) and the
 * watchdog names its timeouts like its own; without a caller's signal there is then no signal to
 * give undici, and a stop (a relay that streams anyway is still timed per event) destroys the body.
 */
export class RequestWatchdog {
  /** Emits "abort" (and says `aborted`) when the caller aborts, a timer expires or the request is
   * cancelled; undici takes an EventEmitter as a signal. Undefined for a body read whole without a
   * caller's signal. */
  readonly signal: AbortEmitter | undefined;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #libraryTimeouts: LibraryTimeouts | undefined;
  #body: Body | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expired: { readonly ms: number; readonly waitingFor: string } | undefined;
  #cancelled = false;
  #released = false;
  #unsubscribe: (() => void) | undefined;

  constructor(callerSignal?: AbortSignal, libraryTimeouts?: LibraryTimeouts) {
    this.#callerSignal = callerSignal;
    this.#libraryTimeouts = libraryTimeouts;
    if (libraryTimeouts !== undefined && callerSignal === undefined) {
      this.signal = undefined;
      return;
    }
    const signal = new AbortEmitter();
    this.signal = signal;
    if (callerSignal === undefined) return;
    if (callerSignal.aborted) signal.abort();
    // Until the request is over (aborted or not): release lets go of the caller's signal.
    else this.#unsubscribe = onAbort(callerSignal, () => signal.abort());
  }

  /** False when undici times the body itself (a body read whole). */
  get timesBody(): boolean {
    return this.#libraryTimeouts === undefined;
  }

  /** The response's body, which a stop destroys when the watchdog has no signal of its own. */
  attach(body: Body): void {
    this.#body = body;
  }

  #stop(): void {
    if (this.signal !== undefined) this.signal.abort();
    else if (this.#body !== undefined && !this.#body.destroyed)
      this.#body.destroy(new Error("The request watchdog stopped the response."));
  }

  /** (Re)starts the timer: if nothing disarms or re-arms it within `ms`, the request is aborted. */
  arm(ms: number, waitingFor: string): void {
    this.disarm();
    if (!Number.isFinite(ms) || ms <= 0) return;
    this.#timer = setTimeout(() => {
      this.#expired = { ms, waitingFor };
      this.#stop();
    }, ms);
    this.#timer.unref?.();
  }

  /** Stops the timer. */
  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The request is over: stops the timer and detaches from the caller's signal. */
  release(): void {
    this.disarm();
    if (this.#released) return;
    this.#released = true;
    this.#unsubscribe?.();
  }

  /** Aborts the request because the consumer no longer wants it. */
  cancel(): void {
    this.#cancelled = true;
    this.#stop();
    this.release();
  }

  /** True once the caller aborted or the consumer cancelled. */
  get aborted(): boolean {
    return this.#cancelled || this.#callerSignal?.aborted === true;
  }

  /** Classifies a failure of this request: timeout, abort, or a network error. */
  failure(error: unknown, context: NetworkContext): SvcFlowError {
    this.release();
    const expired = this.#expired ?? this.#libraryExpiry(error);
    if (expired !== undefined) {
      const { ms, waitingFor } = expired;
      const { url, responseStarted: _started, ...ids } = context;
      return new TimeoutError(
        `Timed out after ${ms} ms waiting for ${waitingFor} from ${url}. The gateway may be overloaded; retry, or raise the timeout.`,
        { ...ids, cause: error },
      );
    }
    if (this.#callerSignal?.aborted === true) return toAbortedError(this.#callerSignal.reason);
    if (this.#cancelled) return new AbortedError("The stream was cancelled.", { cause: error });
    return errorFromNetwork(error, context);
  }

  // undici's own timeouts, when it runs them, read as the watchdog's.
  #libraryExpiry(error: unknown): { readonly ms: number; readonly waitingFor: string } | undefined {
    const timeouts = this.#libraryTimeouts;
    if (timeouts === undefined || typeof error !== "object" || error === null) return undefined;
    const code = (error as { code?: unknown }).code;
    if (code === "UND_ERR_HEADERS_TIMEOUT") return { ms: timeouts.firstByteTimeoutMs, waitingFor: "the response" };
    if (code === "UND_ERR_BODY_TIMEOUT") return { ms: timeouts.chunkTimeoutMs, waitingFor: WAITING_FOR_CHUNK };
    return undefined;
  }
}

/** The signal undici is given: an EventEmitter that emits "abort" once. */
class AbortEmitter extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit("abort");
  }
}
