import type { Writable } from "node:stream";

/** Where a command writes, and what it was given: passed in so tests can run commands in-process. */
export interface CommandContext {
  readonly argv: readonly string[];
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM so commands can journal and stop cleanly. */
  readonly signal: AbortSignal;
}

/** One CLI command, as data: its name, one-line summary, usage, and what it runs. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Resolves to the exit code: 0 done, 1 the work failed, 2 bad usage or bad input. */
  run(context: CommandContext): Promise<number>;
}

/** Thrown by argument parsing: exit code 2 and the usage line. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
