import { AbortedError } from "../errors.js";

/** Throws `aborted` when Ctrl-C came before a command started its work (e.g. while loading a file). */
export function throwIfInterrupted(signal: AbortSignal): void {
  if (signal.aborted)
    throw new AbortedError(`Interrupted (${reasonOf(signal)}) before anything started; nothing was spent.`);
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : "aborted";
}

/** The abort reason when the reader of the CLI's output has gone (`svc-flow validate *.yaml | head -1`). */
export class OutputClosedError extends Error {
  constructor() {
    super("Output closed");
    this.name = "OutputClosedError";
  }
}
