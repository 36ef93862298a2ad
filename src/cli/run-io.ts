import type { CommandContext } from "./command.js";
import { progressPrinter } from "./workflow-progress.js";

/** What a command that runs a workflow hands the run: its signal and environment, the local-gateway notice on
 * stderr, and the progress view (live on a terminal, plain lines otherwise). */
export function runIo(context: CommandContext) {
  return {
    signal: context.signal,
    env: context.env,
    notice: (line: string) => context.stderr.write(`${line}\n`),
    onEvent: progressPrinter(context.stderr as typeof context.stderr & { isTTY?: boolean }, {
      env: context.env,
      signal: context.signal,
    }),
  };
}

/** The time that starts a default run directory's name, in UTC: 20261127-093012. */
export function runStamp(): string {
  return new Date()
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace(/[-:]/g, "")
    .replace("T", "-");
}
