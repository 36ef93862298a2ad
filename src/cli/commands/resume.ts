import { resolve } from "node:path";
import { runIo } from "../run-io.js";
import { resumeWorkflow } from "../compose-run.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs } from "../parse-args.js";
import { reportRunResult } from "../report-run-result.js";
import { readRunFlags, RUN_FLAGS } from "../run-flags.js";
import { resumeOnWorkers } from "../distributed-run.js";
import { callableModels } from "../callable-models.js";
import { throwIfInterrupted } from "../interrupted.js";

const FLAGS = {
  ...RUN_FLAGS,
  workflow: {
    type: "string",
    value: "FILE",
    help: "The workflow file to finish with; default: the run's own copy (workflow.yaml)",
  },
  redis: { type: "string", value: "URL", help: "Resume a distributed run (by its id) on the workers of this Redis" },
  out: { type: "string", value: "DIR", help: "With --redis: where the finished run's files go" },
} as const satisfies FlagSpecs;

/** `svc-flow resume RUN_DIR [--budget YUAN]`: finishes a run without repeating or re-paying finished work. */
export const resumeCommand: Command = {
  usage: "svc-flow resume RUN_DIR [options]\nsvc-flow resume RUN_ID --redis URL [options]",
  flags: FLAGS,
  notes: ["With --redis the run keeps its stored prices unless --prices replaces them."],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length !== 1)
      throw new UsageError("Name the run directory to resume (the --out of `svc-flow run`).");
    if (values.out !== undefined && values.redis === undefined)
      throw new UsageError(
        "--out goes with --redis (where a distributed run's files go); a run directory is finished in place.",
      );
    const flags = await readRunFlags(values, context.cwd, context.signal);
    const models = values.redis === undefined ? await callableModels(context.env, context.signal) : undefined;
    throwIfInterrupted(context.signal);
    if (values.redis !== undefined) {
      return resumeOnWorkers(context, positionals[0]!, {
        redisURL: values.redis,
        ...(values.out === undefined ? {} : { outDir: resolve(context.cwd, values.out) }),
        budgetYuan: flags.budgetYuan,
        prices: flags.prices,
        allowUnpriced: flags.allowUnpriced,
      });
    }
    const result = await resumeWorkflow(resolve(context.cwd, positionals[0]!), {
      ...flags,
      ...(values.workflow === undefined ? {} : { workflow: resolve(context.cwd, values.workflow) }),
      ...(models === undefined ? {} : { models }),
      ...runIo(context),
    });
    return reportRunResult(result, context);
  },
};
