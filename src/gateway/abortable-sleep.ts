import { onAbort } from "./on-abort.js";
import { toAbortedError } from "./to-aborted-error.js";

/** Waits `ms` milliseconds; rejects with AbortedError as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(toAbortedError(signal.reason));
  return new Promise((resolve, reject) => {
    // setTimeout is looked up at call time so fake timers in tests drive it.
    const timer = setTimeout(
      () => {
        unsubscribe?.();
        resolve();
      },
      Math.max(0, ms),
    );
    const unsubscribe =
      signal === undefined
        ? undefined
        : onAbort(signal, () => {
            clearTimeout(timer);
            reject(toAbortedError(signal.reason));
          });
  });
}
