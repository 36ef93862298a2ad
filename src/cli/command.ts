import type { Readable, Writable } from "node:stream";

/** Where a command writes, and what it was given: passed in so tests can run commands in-process. */
export interface CommandContext {
  readonly argv: readonly string[];
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable;
  /** Where a command reads a person's answers (y/n), when it asks on a terminal. Default: none. */
  readonly stdin?: Readable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM so commands can journal and stop cleanly. */
  readonly signal: AbortSignal;
}

/** A flag as node:util parseArgs takes it, with what `--help` says about it. */
export interface FlagSpec {
  readonly type: "string" | "boolean";
  readonly multiple?: boolean;
  readonly short?: string;
  /** The value's placeholder in `--help` (string flags), e.g. `YUAN`. */
  readonly value?: string;
  /** One line for `--help`: what the flag does and its default. */
  readonly help: string;
}

/** A command's flags by long name: what it parses and what `--help` lists, so the two cannot drift. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** One CLI command's module: its synopsis, its flags, and what it runs. */
export interface Command {
  /** Synopsis line(s) without the flags' details, e.g. `svc-flow run FILE [options]`. */
  readonly usage: string;
  readonly flags: FlagSpecs;
  /** Lines `--help` prints after the flags: other forms of the command, lists. */
  readonly notes?: readonly string[];
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
