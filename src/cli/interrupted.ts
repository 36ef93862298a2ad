import { AbortedError } from "../errors.js";

/** Throws `aborted` when Ctrl-C came before a command started its work (e.g. while loading a file). */
export function throwIfInterrupted(signal: AbortSignal): void {
  if (signal.aborted)
    throw new AbortedError(`Interrupted (${reasonOf(signal)}) before anything started; nothing was spent.`);
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : "aborted";
}
