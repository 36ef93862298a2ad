import { resolve } from "node:path";
import { runIo, runStamp } from "../run-io.js";
import { loadWorkflow } from "../../workflow/load/load-workflow.js";
import { runWorkflow } from "../compose-run.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs } from "../parse-args.js";
import { reportRunResult } from "../report-run-result.js";
import { extraArguments, readInputs, readReuseDirs, readRunFlags, RUN_FLAGS } from "../run-flags.js";
import { runOnWorkers } from "../distributed-run.js";
import { callableModels } from "../callable-models.js";
import { throwIfInterrupted } from "../interrupted.js";
import { checkFolderFlag } from "../path-flags.js";
import { workflowPath } from "../workflow-path.js";

const FLAGS = {
  input: {
    type: "string",
    multiple: true,
    value: "NAME=VALUE",
    help: "Set an input (repeat for more; lists and objects as JSON)",
  },
  out: { type: "string", value: "DIR", help: "The run directory; default: runs/<time>-<workflow name>" },
  items: { type: "string", value: "FILE", help: "Run the steps once per row of a .jsonl or .csv file (a batch)" },
  reuse: {
    type: "string",
    multiple: true,
    value: "DIRS",
    help: "Take each step whose key matches a finished one of these runs (A,B), at ¥0",
  },
  ...RUN_FLAGS,
  redis: { type: "string", value: "URL", help: "Run the items on svc-flow workers that share this Redis" },
  detach: { type: "boolean", help: "With --redis: enqueue the run and exit without waiting for it" },
} as const satisfies FlagSpecs;

/** `svc-flow run FILE [--input k=v]... [--budget YUAN] [--out DIR]`: runs a workflow into a run directory. */
export const runCommand: Command = {
  usage: "svc-flow run FILE [options]",
  flags: FLAGS,
  notes: [
    "Media and item paths in --input values are relative to the workflow file, not to the current folder.",
    "Progress goes to stderr: a live view on a terminal (NO_COLOR: no colour), plain lines otherwise.",
    "Ctrl-C stops cleanly; finish the run with svc-flow resume RUN_DIR.",
  ],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length === 0) throw new UsageError("Name the workflow file to run.");
    if (positionals.length > 1) throw extraArguments("Run one workflow file at a time", positionals);
    if (values.detach === true && values.redis === undefined)
      throw new UsageError(
        "--detach goes with --redis URL, where workers run the items. Without --redis this process runs the workflow; put it in the background with your shell instead.",
      );
    const flags = await readRunFlags(values, context.cwd, context.signal);
    const models = await callableModels(context.env, context.signal);
    const workflow = await loadWorkflow(workflowPath(context.cwd, positionals[0]!), {
      ...flags,
      signal: context.signal,
      cwd: context.cwd,
      ...(models === undefined ? {} : { models }),
    });
    throwIfInterrupted(context.signal);
    const reuse = readReuseDirs(values.reuse, context.cwd);
    const outDir = resolve(context.cwd, values.out ?? `runs/${runStamp()}-${workflow.name}`);
    await checkFolderFlag("--out", outDir);
    if (values.redis !== undefined) {
      if (reuse.length > 0) throw new UsageError("--reuse runs on this machine; leave out --redis.");
      return runOnWorkers(context, workflow, {
        redisURL: values.redis,
        budgetYuan: flags.budgetYuan,
        prices: flags.prices,
        allowUnpriced: flags.allowUnpriced,
        inputs: readInputs(values.input),
        ...(values.items === undefined ? {} : { items: resolve(context.cwd, values.items) }),
        outDir,
        detach: values.detach === true,
      });
    }
    const result = await runWorkflow(workflow, {
      ...flags,
      inputs: readInputs(values.input),
      outDir,
      ...(values.items === undefined ? {} : { items: resolve(context.cwd, values.items) }),
      ...(reuse.length === 0 ? {} : { reuse }),
      ...runIo(context),
    });
    return reportRunResult(result, context);
  },
};
