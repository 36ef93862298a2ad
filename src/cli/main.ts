import { didYouMean } from "../catalog/closest-name.js";
import { SvcFlowError, redactSecrets, registerSecret } from "../errors.js";
import { OutputClosedError } from "./interrupted.js";
import { redactingStream } from "./redacting-stream.js";
import { UsageError, type CommandContext, type CommandEntry } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { formatCommandHelp } from "./format-command-help.js";
import { packageVersion } from "./package-version.js";

function help(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: svc-flow <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun svc-flow <command> --help for a command's options; svc-flow --version prints the version.\n`;
}

/** Runs the CLI with argv (without node and script), returning the exit code. Maps errors once. */
export async function main(argv: readonly string[], given: Omit<CommandContext, "argv">): Promise<number> {
  // Every key the process knows is masked wherever a command writes, whatever form a server echoes it in.
  registerSecret(given.env.SVC_API_KEY);
  const context = { ...given, stdout: redactingStream(given.stdout), stderr: redactingStream(given.stderr) };
  // `svc-flow help run` and `svc-flow --help run` are `svc-flow run --help`.
  const asksHelp = argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h";
  const [name, ...rest] = asksHelp && argv[1] !== undefined ? [argv[1], "--help"] : argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    context.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  // -v and -V as in node and npm.
  if (name === "--version" || name === "-v" || name === "-V" || name === "version") {
    context.stdout.write(`svc-flow ${packageVersion()}\n`);
    return 0;
  }
  const entry: CommandEntry | undefined = COMMANDS.find((candidate) => candidate.name === name);
  if (!entry) {
    const near = didYouMean(
      name,
      COMMANDS.map((command) => command.name),
    ).trimEnd();
    const what = name.startsWith("-")
      ? `Unknown option ${name}: a command comes first, its options after it (svc-flow <command> --help lists them).`
      : `Unknown command "${name}".${near === "" ? "" : ` ${near}`}`;
    context.stderr.write(`${what}\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    context.stdout.write(formatCommandHelp(command, entry.summary));
    return 0;
  }
  try {
    return await command.run({ ...context, argv: rest });
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr.write(
        `svc-flow ${entry.name}: ${error.message}\nUsage: ${command.usage.split("\n").join("\n       ")}\nRun svc-flow ${entry.name} --help for its options.\n`,
      );
      return 2;
    }
    // The reader went away mid-command (`svc-flow validate *.yaml | head -1`): it has what it wanted, so the
    // stop is no news to print; the exit code still says the command did not finish.
    if (context.signal.reason instanceof OutputClosedError && isAbort(error)) return 1;
    return reportError(error, entry, context);
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof SvcFlowError
    ? error.code === "aborted"
    : error instanceof Error && error.name === "AbortError";
}

function reportError(error: unknown, command: CommandEntry, context: Omit<CommandContext, "argv">): number {
  if (error instanceof SvcFlowError) {
    const ids = [error.requestId && `request ${error.requestId}`, error.auditId && `audit ${error.auditId}`]
      .filter(Boolean)
      .join(", ");
    context.stderr.write(
      `svc-flow ${command.name}: ${redactSecrets(error.message)} [${error.code}${ids ? `; ${ids}` : ""}]\n`,
    );
    return isInputError(error) ? 2 : 1;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  context.stderr.write(`svc-flow ${command.name}: ${redactSecrets(message)}\n`);
  return 1;
}

// Bad input (a file, a flag, a model id, a key, a run directory) is exit 2; a failure of the work itself is exit 1.
const INPUT_ERROR_CODES: ReadonlySet<string> = new Set([
  "invalid_config",
  "invalid_parameter",
  "invalid_api_key",
  "invalid_api_key_format",
  "invalid_base_url",
  "missing_api_key",
  "missing_base_url",
  "model_not_found",
  "model_not_allowed",
  // The gateway has no such thing (a clip id, a path under a wrong base URL): the request's fault.
  "not_found",
  "invalid_workflow",
  "invalid_items",
  "invalid_step_input",
  "invalid_run_dir",
  "invalid_journal",
  "run_dir_taken",
  "workflow_changed",
  "unknown_tool",
  "unknown_agent",
  "unknown_step",
  "not_waiting",
  "invalid_approval_input",
  "mcp_server_failed",
  "missing_env",
  "invalid_media",
  "not_an_image",
  "unsupported_media",
  "unsupported_audio_format",
  "unknown_time_zone",
  "invalid_run_id",
  "redis_unreachable",
]);

function isInputError(error: SvcFlowError): boolean {
  return INPUT_ERROR_CODES.has(error.code);
}

/** Runs the CLI as a process: argv from the command line, SIGINT/SIGTERM abort the signal. */
export async function runFromProcess(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      // First signal: stop cleanly (in-flight work journals). Second: leave at once.
      if (++interrupts > 1) process.exit(130);
      controller.abort(new Error(`Received ${signal}`));
    });
  }
  // A reader that went away (`svc-flow runs | head -1`) closes the pipe: stop quietly, as SIGPIPE would stop
  // a C program, instead of dying on an unhandled 'error' with a stack trace. Work in flight stops resumably.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
      controller.abort(new OutputClosedError());
    });
  }
  process.exitCode = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  });
}
