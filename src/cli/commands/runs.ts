import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { formatYuan } from "../../cost/format-summary-table.js";
import { listRuns, type RunListing } from "../../workflow/schedule/list-runs.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { numberFlag, parseCommandArgs } from "../parse-args.js";
import { shellWord } from "../../workflow/shell-word.js";

const FLAGS = {
  dir: { type: "string", value: "DIR", help: "Folder of run directories; default: runs" },
  limit: { type: "string", value: "N", help: "Newest runs to list; default: 20" },
  json: { type: "boolean", help: "Print the runs as JSON" },
} as const satisfies FlagSpecs;

/** `svc-flow runs [--dir DIR] [--limit N] [--json]`: recent runs, their state, items and cost. */
export const runsCommand: Command = {
  usage: "svc-flow runs [options]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length > 0)
      throw new UsageError(`Unexpected argument "${positionals[0]}". Pass the runs folder with --dir.`);
    const limit = numberFlag("limit", values.limit, { min: 1 }) ?? 20;
    const dir = resolve(context.cwd, values.dir ?? "runs");
    if ((await stat(dir).catch(() => undefined))?.isDirectory() === false)
      throw new UsageError(`${dir} is a file. Pass the folder that holds the run directories with --dir.`);
    const runs = await listRuns(dir, { limit });
    if (values.json === true) {
      context.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      return 0;
    }
    if (runs.length === 0) {
      context.stderr.write(
        `No runs in ${values.dir ?? "runs"}. Start one with svc-flow run FILE or svc-flow schedule FILE.\n`,
      );
      return 0;
    }
    context.stdout.write(`${formatRuns(runs)}\n`);
    const hints = runs
      .filter((run) => run.state === "answered")
      .map((run) => `${run.name} is answered: go on with svc-flow resume ${shellWord(run.dir)}`);
    if (runs.some((run) => run.waitingFor !== undefined && run.waitingFor.length > 0))
      hints.unshift("Answer a waiting run with: svc-flow approve RUN_DIR STEP_ID [--reject] [--note TEXT] [--item N]");
    if (hints.length > 0) context.stdout.write(`\n${hints.join("\n")}\n`);
    return 0;
  },
};

/** Runs as an aligned table for people. */
export function formatRuns(runs: readonly RunListing[]): string {
  const rows = runs.map((run) => [
    run.startedAt === undefined ? "-" : run.startedAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    run.name,
    run.waitingFor === undefined ? run.state : `waiting for ${run.waitingFor.join(", ")}`,
    run.items === undefined
      ? "-"
      : `${run.items.done}/${run.items.total}${run.items.failed > 0 ? ` (${run.items.failed} failed)` : ""}`,
    `${formatYuan(run.costYuan)}${run.unpriced ? " + unpriced" : ""}${
      run.possibleDoubleBillYuan === undefined ? "" : ` (${formatYuan(run.possibleDoubleBillYuan)} may be billed twice)`
    }`,
    run.dir,
  ]);
  const header = ["STARTED", "NAME", "STATE", "ITEMS", "COST", "DIR"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
