import { resolve } from "node:path";
import { loadPriceFile } from "../../cost/load-price-file.js";
import { loadWorkflow } from "../../workflow/load/load-workflow.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { estimateWorkflow } from "../estimate/estimate-workflow.js";
import { formatEstimate } from "../estimate/format-estimate.js";
import { parseCommandArgs } from "../parse-args.js";
import { readInputs } from "../run-flags.js";

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
  json: { type: "boolean", help: "Print the estimate as JSON" },
} as const satisfies FlagSpecs;

/** `svc-flow estimate FILE [--input k=v]... [--prices FILE] [--json]`: prices a workflow before running it. */
export const estimateCommand: Command = {
  usage: "svc-flow estimate FILE [options]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length !== 1)
      throw new UsageError(
        positionals.length === 0 ? "Name the workflow file to estimate." : "Estimate one workflow file at a time.",
      );
    // Named as typed, so errors show the path the user gave. Unpriced models under a budget are
    // what an estimate lists (run refuses them), so they do not stop it.
    const workflow = await loadWorkflow(positionals[0]!, {
      signal: context.signal,
      cwd: context.cwd,
      allowUnpriced: true,
    });
    const prices =
      values.prices === undefined
        ? undefined
        : await loadPriceFile(resolve(context.cwd, values.prices), { signal: context.signal });
    const estimate = await estimateWorkflow(workflow, {
      inputs: readInputs(values.input),
      ...(prices === undefined ? {} : { prices, pricesFile: values.prices }),
    });
    context.stdout.write(
      values.json === true ? `${JSON.stringify(estimate, null, 2)}\n` : `${formatEstimate(estimate)}\n`,
    );
    return 0;
  },
};
