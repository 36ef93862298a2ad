import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/** bin/svc-flow.js, the command a shell user runs. */
export const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");

/** A `svc-flow` child process: its output so far, a wait for a line, and how it ended. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr (or stdout) holds `text`; rejects if the process ends first. */
  waitFor(text: string | RegExp, stream?: "stdout" | "stderr"): Promise<void>;
  /** The exit code, or the signal that ended it. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns bin/svc-flow.js with ARGV in `cwd`; `env` is added to a bare environment (PATH only).
 * `close` closes the reading end of that stream at once, as `| head -1` does once it has its line. */
export function spawnCli(
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string; close?: "stdout" | "stderr" },
): CliProcess {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...options.env },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  if (options.close !== undefined) child[options.close]!.destroy();
  const text = { stdout: "", stderr: "" };
  const waiters = new Set<() => void>();
  for (const name of ["stdout", "stderr"] as const)
    child[name]!.on("data", (chunk: Buffer) => {
      text[name] += chunk.toString();
      for (const check of waiters) check();
    });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    exit,
    waitFor(wanted, stream = "stderr") {
      const seen = () => (typeof wanted === "string" ? text[stream].includes(wanted) : wanted.test(text[stream]));
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!seen()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        void exit.then(() => {
          if (waiters.delete(check))
            reject(new Error(`svc-flow ended before printing ${String(wanted)}:\n${text.stdout}\n${text.stderr}`));
        });
      });
    },
  };
}
