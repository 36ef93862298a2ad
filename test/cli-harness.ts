import { Writable } from "node:stream";
import { main } from "../src/cli/main.js";

/** A stream that keeps what is written, chunk by chunk. */
export class Capture extends Writable {
  readonly chunks: string[] = [];
  get text(): string {
    return this.chunks.join("");
  }
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }
}

/** What one in-process CLI run gave back. */
export interface CliResult {
  readonly code: number;
  readonly stdout: Capture;
  readonly stderr: Capture;
}

/** Runs `svc-flow ARGV` in-process with the given environment and working folder. */
export async function runCli(
  argv: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<CliResult> {
  const running = startCli(argv, options);
  return { code: await running.exit, stdout: running.stdout, stderr: running.stderr };
}

/** Starts `svc-flow ARGV` in-process; its output can be read while it runs, and `stop()` is Ctrl-C. */
export function startCli(argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd: string }) {
  const stdout = new Capture();
  const stderr = new Capture();
  const controller = new AbortController();
  const exit = main(argv, { stdout, stderr, env: options.env, cwd: options.cwd, signal: controller.signal });
  return { stdout, stderr, exit, stop: () => controller.abort(new Error("Received SIGINT")) };
}

/** The gateway's environment for a command: its base URL and a key. */
export function gatewayEnv(baseURL: string, apiKey: string): NodeJS.ProcessEnv {
  return { SVC_BASE_URL: baseURL, SVC_API_KEY: apiKey };
}
