import { basename, resolve } from "node:path";
import { runIo, runStamp } from "../run-io.js";
import { rerunWorkflow } from "../compose-run.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs } from "../parse-args.js";
import { reportRunResult } from "../report-run-result.js";
import { extraArguments, readInputs, readReuseDirs, readRunFlags, RUN_FLAGS } from "../run-flags.js";
import { callableModels } from "../callable-models.js";
import { checkFolderFlag } from "../path-flags.js";
import { throwIfInterrupted } from "../interrupted.js";

const FLAGS = {
  from: {
    type: "string",
    value: "STEP_ID",
    help: "Run this step and everything that reads it again, whatever its key",
  },
  workflow: {
    type: "string",
    value: "FILE",
    help: "The (edited) workflow file to run; default: the run's own copy (workflow.yaml)",
  },
  input: {
    type: "string",
    multiple: true,
    value: "NAME=VALUE",
    help: "Change an input (repeat for more); the others keep the run's values",
  },
  out: { type: "string", value: "DIR", help: "The new run directory; default: runs/<time>-<workflow name>" },
  reuse: {
    type: "string",
    multiple: true,
    value: "DIRS",
    help: "More runs to take finished steps from, after RUN_DIR",
  },
  ...RUN_FLAGS,
} as const satisfies FlagSpecs;

/** `svc-flow rerun RUN_DIR [--from STEP_ID] [--workflow FILE] [--input k=v]`: runs again, reusing what did not change. */
export const rerunCommand: Command = {
  usage: "svc-flow rerun RUN_DIR [options]",
  flags: FLAGS,
  notes: [
    "Writes a new run directory; RUN_DIR is only read. Steps whose key matches a finished step of RUN_DIR",
    "are taken from it at no cost (shown as reused); the rest run. The keying rule: docs/rerun.md.",
  ],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length === 0)
      throw new UsageError("Name the run directory to run again (the --out of `svc-flow run`).");
    if (positionals.length > 1) throw extraArguments("Rerun one run directory at a time", positionals);
    const flags = await readRunFlags(values, context.cwd, context.signal);
    const models = await callableModels(context.env, context.signal);
    throwIfInterrupted(context.signal);
    const reuse = readReuseDirs(values.reuse, context.cwd);
    const runDir = resolve(context.cwd, positionals[0]!);
    const outDir = resolve(
      context.cwd,
      values.out ?? `runs/${runStamp()}-${basename(runDir).replace(/^\d{8}-\d{6}-/, "")}`,
    );
    await checkFolderFlag("--out", outDir);
    const result = await rerunWorkflow(runDir, {
      ...flags,
      ...(values.workflow === undefined ? {} : { workflow: resolve(context.cwd, values.workflow) }),
      ...(values.from === undefined ? {} : { rerunFrom: values.from }),
      ...(reuse.length === 0 ? {} : { reuse }),
      ...(models === undefined ? {} : { models }),
      inputs: readInputs(values.input),
      outDir,
      ...runIo(context),
    });
    return reportRunResult(result, context);
  },
};
