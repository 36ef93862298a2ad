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

/** One CLI command's module: its usage line(s), and what it runs. */
export interface Command {
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

/** A command as `svc-flow --help` lists it: its name and one-line summary, and its module, loaded
 * when the command runs. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  load(): Promise<Command>;
}
