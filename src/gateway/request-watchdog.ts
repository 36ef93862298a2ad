import { EventEmitter } from "node:events";
import { AbortedError, TimeoutError, type SvcFlowError } from "../errors.js";
import { errorFromNetwork, type NetworkContext } from "./error-from-network.js";
import { onAbort } from "./on-abort.js";
import { toAbortedError } from "./to-aborted-error.js";

/**
 * One request's deadline and cancellation: a restartable timer (connect/first byte, then between
 * chunks) and the caller's signal merged into the one signal given to undici. After a failure it
 * tells which of the three it was, since undici only reports "aborted" or a socket error.
 */
export class RequestWatchdog {
  /** Emits "abort" (and says `aborted`) when the caller aborts, a timer expires or the request is
   * cancelled. undici takes an EventEmitter as a signal; an AbortController per request, with a
   * listener added and removed through EventTarget, cost several microseconds a request (measured),
   * and AbortSignal.any to merge the caller's signal about 27. */
  readonly signal = new AbortEmitter();
  readonly #callerSignal: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expired: { readonly ms: number; readonly waitingFor: string } | undefined;
  #cancelled = false;
  #released = false;

  constructor(callerSignal?: AbortSignal) {
    this.#callerSignal = callerSignal;
    if (callerSignal === undefined) return;
    if (callerSignal.aborted) this.signal.abort();
    else {
      const unsubscribe = onAbort(callerSignal, () => this.signal.abort());
      // Once the request is over (aborted or not), the caller's signal lets go of it.
      this.signal.once("done", unsubscribe);
    }
  }

  /** (Re)starts the timer: if nothing disarms or re-arms it within `ms`, the request is aborted. */
  arm(ms: number, waitingFor: string): void {
    this.disarm();
    if (!Number.isFinite(ms) || ms <= 0) return;
    this.#timer = setTimeout(() => {
      this.#expired = { ms, waitingFor };
      this.signal.abort();
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
    this.signal.emit("done");
  }

  /** Aborts the request because the consumer no longer wants it. */
  cancel(): void {
    this.#cancelled = true;
    this.signal.abort();
    this.release();
  }

  /** True once the caller aborted or the consumer cancelled. */
  get aborted(): boolean {
    return this.#cancelled || this.#callerSignal?.aborted === true;
  }

  /** Classifies a failure of this request: timeout, abort, or a network error. */
  failure(error: unknown, context: NetworkContext): SvcFlowError {
    this.release();
    if (this.#expired !== undefined) {
      const { ms, waitingFor } = this.#expired;
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
