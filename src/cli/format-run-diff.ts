import { formatYuan } from "../cost/format-summary-table.js";
import type { RunDiff, RunSide, StepDiff, StepSide } from "../workflow/run-diff/diff-runs.js";
import { hunkHeader, type ValueChange } from "../workflow/run-diff/diff-values.js";
import { formatTable } from "./format-table.js";

/** Diff lines shown per change; --json has every one. */
const MAX_LINES_PER_CHANGE = 40;

/** Two runs compared, for people: the runs, a table of step instances, then each change with its line diff. */
export function formatRunDiff(diff: RunDiff): string {
  const rows = diff.steps.map((step) => [
    step.key,
    step.kind,
    step.status,
    step.changes.join(", "),
    costCell(step.a),
    costCell(step.b),
  ]);
  const { counts } = diff;
  const lines = [
    `A  ${describeRun(diff.a)}`,
    `B  ${describeRun(diff.b)}`,
    ...(diff.workflowChanged ? ["The workflow file differs between the two runs."] : []),
    "",
    formatTable(["STEP", "KIND", "DIFF", "WHAT", "COST A", "COST B"], rows, [4, 5]),
    "",
    `${counts.changed} changed, ${counts.added} added, ${counts.removed} removed, ${counts.same} same.`,
  ];
  const runChanges = [...diff.inputs, ...diff.defaults];
  if (runChanges.length > 0) lines.push("", "Run:", ...runChanges.flatMap((change) => formatChange(change)));
  for (const step of diff.steps.filter((candidate) => candidate.status !== "same")) lines.push("", ...formatStep(step));
  if (diff.steps.some((step) => [...step.input, ...step.output].some((change) => change.type === "media")))
    lines.push("", "Images and audio that differ: svc-flow diff A B --html FILE shows them side by side.");
  return lines.join("\n");
}

function describeRun(run: RunSide): string {
  const cost = `${formatYuan(run.costYuan)}${run.costComplete ? "" : " + unpriced"}`;
  return `${run.dir}  ${run.name}  ${run.status}  ${cost}`;
}

function costCell(side: StepSide | undefined): string {
  if (side === undefined) return "-";
  if (side.reusedFrom !== undefined) return `reused ${formatYuan(0)}`;
  if (side.unpricedCalls > 0) return side.costYuan > 0 ? `${formatYuan(side.costYuan)} + unpriced` : "unpriced";
  return formatYuan(side.costYuan);
}

function formatStep(step: StepDiff): string[] {
  if (step.status === "added") return [`${step.key}: only in B (${step.b?.status})`];
  if (step.status === "removed") return [`${step.key}: only in A (${step.a?.status})`];
  const status = step.changes.includes("status") ? [`  status: ${step.a?.status} -> ${step.b?.status}`] : [];
  const reads =
    step.reads === undefined
      ? []
      : [
          step.reads.length === 0
            ? "  key: its step key differs (its map's list, tools, settings or rendered input changed)"
            : `  reads: ${step.reads.join(", ")}, which changed`,
        ];
  return [
    `${step.key} (${step.changes.join(", ")}):`,
    ...status,
    ...reads,
    ...[...step.input, ...step.output].flatMap(formatChange),
  ];
}

function formatChange(change: ValueChange): string[] {
  if (change.type === "media") {
    const name = (ref: { artifact: string } | undefined) => ref?.artifact ?? "nothing";
    return [`  ${change.path}: ${name(change.a)} -> ${name(change.b)}`];
  }
  const lines = change.hunks.flatMap((hunk) => [hunkHeader(hunk), ...hunk.lines]);
  // A one-line change reads best on one line each side.
  if (lines.length === 3 && lines[1]?.startsWith("-") && lines[2]?.startsWith("+"))
    return [`  ${change.path}:`, `    ${lines[1]}`, `    ${lines[2]}`];
  const shown = lines.slice(0, MAX_LINES_PER_CHANGE).map((line) => `    ${line}`);
  const more = lines.length - shown.length;
  return [
    `  ${change.path}:`,
    ...shown,
    ...(more > 0 ? [`    ... ${more} more lines (svc-flow diff --json has them all)`] : []),
  ];
}
