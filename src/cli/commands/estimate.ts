import { resolve } from "node:path";
import { loadPriceFile } from "../../cost/load-price-file.js";
import { loadWorkflow } from "../../workflow/load/load-workflow.js";
import { finishedStepsByKey } from "../../workflow/run/finished-steps.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { estimateWorkflow } from "../estimate/estimate-workflow.js";
import { formatEstimate } from "../estimate/format-estimate.js";
import { parseCommandArgs } from "../parse-args.js";
import { extraArguments, readInputs, readReuseDirs } from "../run-flags.js";
import { workflowPath } from "../workflow-path.js";

const FLAGS = {
  input: {
    type: "string",
    multiple: true,
    value: "NAME=VALUE",
    help: "Set an input as svc-flow run would (repeat for more)",
  },
  prices: {
    type: "string",
    value: "FILE",
    help: "Prices (YAML or JSON, in yuan) for models without a published price",
  },
  reuse: {
    type: "string",
    multiple: true,
    value: "DIRS",
    help: "Show which steps svc-flow run --reuse would take from these runs (at ¥0), and price the rest",
  },
  json: { type: "boolean", help: "Print the estimate as JSON" },
} as const satisfies FlagSpecs;

/** `svc-flow estimate FILE [--input k=v]... [--prices FILE] [--reuse RUN_DIR,...] [--json]`: prices a workflow before running it. */
export const estimateCommand: Command = {
  usage: "svc-flow estimate FILE [options]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length === 0) throw new UsageError("Name the workflow file to estimate.");
    if (positionals.length > 1) throw extraArguments("Estimate one workflow file at a time", positionals);
    // Named as typed, so errors show the path the user gave. Unpriced models under a budget are
    // what an estimate lists (run refuses them), so they do not stop it.
    workflowPath(context.cwd, positionals[0]!);
    const workflow = await loadWorkflow(positionals[0]!, {
      signal: context.signal,
      cwd: context.cwd,
      allowUnpriced: true,
    });
    const prices =
      values.prices === undefined
        ? undefined
        : await loadPriceFile(resolve(context.cwd, values.prices), { signal: context.signal });
    const reuseDirs = values.reuse === undefined ? undefined : readReuseDirs(values.reuse, context.cwd);
    const estimate = await estimateWorkflow(workflow, {
      inputs: readInputs(values.input),
      ...(prices === undefined ? {} : { prices, pricesFile: values.prices }),
      ...(reuseDirs === undefined
        ? {}
        : { reuse: { runDirs: reuseDirs, finished: await finishedStepsByKey(reuseDirs) } }),
    });
    context.stdout.write(
      values.json === true ? `${JSON.stringify(estimate, null, 2)}\n` : `${formatEstimate(estimate)}\n`,
    );
    return 0;
  },
};
