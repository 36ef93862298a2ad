// Every subscriber of one signal, behind the one listener that signal has for them all.
interface Subscribers {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

const subscribersBySignal = new WeakMap<AbortSignal, Subscribers>();

/**
 * Calls `callback` once when `signal` aborts; returns the function that unsubscribes it. However
 * many requests, waits and queue places follow one signal at once (a run's signal is shared by
 * every item in flight), the signal gets one listener: adding one per operation made a batch of
 * more than ten concurrent items trip Node's MaxListenersExceededWarning, though none leaked.
 * The listener is removed when its last subscriber leaves. A signal already aborted never calls
 * back: check `signal.aborted` first.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let subscribers = subscribersBySignal.get(signal);
  if (subscribers === undefined) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      subscribersBySignal.delete(signal);
      for (const subscriber of [...callbacks]) subscriber();
      callbacks.clear();
    };
    subscribers = { callbacks, listener };
    subscribersBySignal.set(signal, subscribers);
    signal.addEventListener("abort", listener, { once: true });
  }
  const { callbacks, listener } = subscribers;
  // A wrapper of its own, so the same function subscribed twice is two subscriptions.
  const subscription = (): void => callback();
  callbacks.add(subscription);
  return () => {
    if (!callbacks.delete(subscription) || callbacks.size > 0) return;
    if (subscribersBySignal.get(signal)?.callbacks === callbacks) subscribersBySignal.delete(signal);
    signal.removeEventListener("abort", listener);
  };
}
