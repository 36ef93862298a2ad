import { AbortedError, TimeoutError, type SvcFlowError } from "../errors.js";
import { errorFromNetwork, type NetworkContext } from "./error-from-network.js";
import { toAbortedError } from "./to-aborted-error.js";

/**
 * One request's deadline and cancellation: a restartable timer (connect/first byte, then between
 * chunks) and the caller's signal merged into the one signal given to undici. After a failure it
 * tells which of the three it was, since undici only reports "aborted" or a socket error.
 */
export class RequestWatchdog {
  /** Aborts when the caller aborts, a timer expires or the request is cancelled. */
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expired: { readonly ms: number; readonly waitingFor: string } | undefined;
  #cancelled = false;

  constructor(callerSignal?: AbortSignal) {
    this.#callerSignal = callerSignal;
    this.signal = callerSignal === undefined ? this.#controller.signal : AbortSignal.any([callerSignal, this.#controller.signal]);
  }

  /** (Re)starts the timer: if nothing disarms or re-arms it within `ms`, the request is aborted. */
  arm(ms: number, waitingFor: string): void {
    this.disarm();
    if (!Number.isFinite(ms) || ms <= 0) return;
    this.#timer = setTimeout(() => {
      this.#expired = { ms, waitingFor };
      this.#controller.abort(new TimeoutError(`Timed out waiting for ${waitingFor}.`));
    }, ms);
    this.#timer.unref?.();
  }

  /** Stops the timer. */
  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Aborts the request because the consumer no longer wants it. */
  cancel(): void {
    this.#cancelled = true;
    this.disarm();
    this.#controller.abort(new AbortedError("The stream was cancelled."));
  }

  /** True once the caller aborted or the consumer cancelled. */
  get aborted(): boolean {
    return this.#cancelled || this.#callerSignal?.aborted === true;
  }

  /** Classifies a failure of this request: timeout, abort, or a network error. */
  failure(error: unknown, context: NetworkContext): SvcFlowError {
    this.disarm();
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
