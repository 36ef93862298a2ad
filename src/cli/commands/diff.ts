import { resolve } from "node:path";
import { diffRuns } from "../../workflow/run-diff/diff-runs.js";
import { readRunDir } from "../../workflow/run-diff/read-run-dir.js";
import { writeRunDiffPage } from "../../workflow/run-diff/write-run-diff-page.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { formatRunDiff } from "../format-run-diff.js";
import { prepareFileFlag } from "../path-flags.js";
import { parseCommandArgs } from "../parse-args.js";

const FLAGS = {
  html: {
    type: "string",
    value: "FILE",
    help: "Also write a self-contained HTML page, with changed images and clips side by side",
  },
  json: { type: "boolean", help: "Print the comparison as JSON" },
} as const satisfies FlagSpecs;

/** `svc-flow diff RUN_A RUN_B [--html FILE] [--json]`: the step instances whose definition, outcome or output differ. */
export const diffCommand: Command = {
  usage: "svc-flow diff RUN_A RUN_B [options]",
  flags: FLAGS,
  notes: [
    "Lists every step instance (map items one by one) of either run as added, removed, changed or same.",
    "A changed one says what differs (input, output, status); line diffs follow the table.",
    "Exit 0 whether or not the runs differ; 2 when a directory is not a run directory.",
    "Run directories are only read: no lock is taken, nothing is written in them.",
  ],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length !== 2)
      throw new UsageError(`Name two run directories to compare (got ${positionals.length}).`);
    if (values.html !== undefined) await prepareFileFlag("--html", resolve(context.cwd, values.html));
    const [a, b] = await Promise.all(positionals.map((dir) => readRunDir(resolve(context.cwd, dir))));
    const diff = diffRuns(a!, b!);
    if (values.html !== undefined) await writeRunDiffPage(diff, resolve(context.cwd, values.html));
    context.stdout.write(values.json === true ? `${JSON.stringify(diff, null, 2)}\n` : `${formatRunDiff(diff)}\n`);
    return 0;
  },
};
