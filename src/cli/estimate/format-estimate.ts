import { formatYuan } from "../../cost/format-summary-table.js";
import { formatTable } from "../format-table.js";
import type { UnpricedUse } from "./estimate-chat-calls.js";
import type { StepEstimate, WorkflowEstimate } from "./estimate-workflow.js";

/** The estimate for people: a table per step, the total, what is unpriced, and the notes behind the figures. */
export function formatEstimate(estimate: WorkflowEstimate): string {
  const reusing = estimate.reuse !== undefined;
  const rows = estimate.steps.map((row) => [
    row.step,
    row.kind,
    row.models.length === 0 ? "-" : row.models.join(", "),
    ...(reusing ? [reusedCell(row)] : []),
    callsCell(row),
    yuanCell(row),
    row.times === 0 ? "" : row.unpriced.map((use) => use.name).join(", "),
  ]);
  const header = ["STEP", "KIND", "MODELS", ...(reusing ? ["REUSED"] : []), "CALLS", "MAX YUAN", "UNPRICED"];
  const lines = [
    `Estimate for ${estimate.workflow}: the most each step can cost, before running it (${pricesText(estimate)}${estimate.steps.some((row) => row.unpriced.length > 0) ? "; unpriced models are listed, never counted as 0" : ""}).`,
    ...(estimate.reuse === undefined ? [] : [reuseLine(estimate.reuse)]),
    "",
    formatTable(header, rows, reusing ? [4, 5] : [3, 4]),
    "",
    totalLine(estimate),
  ];
  for (const map of estimate.maps) {
    if (map.count === undefined)
      lines.push(
        `  + ${map.step}: ${formatYuan(map.yuanPerItem)} per item, for a number of items known only when it runs (${map.source})`,
      );
  }
  if (estimate.unpriced.length > 0)
    lines.push(
      `unpriced: ${estimate.unpriced.map(describeUnpriced).join("; ")}. Give their prices with --prices FILE to count them.`,
    );
  const perItemUnpriced = estimate.steps.filter((row) => row.times === undefined && row.unpriced.length > 0);
  if (perItemUnpriced.length > 0)
    lines.push(
      `unpriced per item: ${perItemUnpriced.map((row) => `${row.step}: ${row.unpriced.map(describeUnpriced).join("; ")}`).join(" | ")}`,
    );
  if (estimate.budget !== undefined) {
    lines.push(
      estimate.budget.exceeded
        ? `budget ${formatYuan(estimate.budget.maxYuan)} (budget.maxYuan): the bound is above it, so the run may stop at the budget (resumably; raise it with --budget)`
        : `budget ${formatYuan(estimate.budget.maxYuan)} (budget.maxYuan): the bound fits${estimate.upperBound ? "" : " (as far as it is known)"}`,
    );
  }
  const notes = [
    ...estimate.maps
      .filter((map) => map.count !== undefined)
      .map(
        (map) =>
          `${map.step}: ${map.exact ? "" : "at most "}${map.count} item${map.count === 1 ? "" : "s"} (${map.source}), ${formatYuan(map.yuanPerItem)} per item`,
      ),
    ...estimate.steps.flatMap((row) =>
      (row.times === 0 ? ((row.reused ?? 0) > 0 ? [] : row.notes.slice(0, 1)) : row.notes).map(
        (note) => `${row.step}${row.upperBound ? "" : "*"}: ${note}`,
      ),
    ),
    ...estimate.notes,
  ];
  if (notes.length > 0) lines.push("", "Notes:", ...notes.map((note) => `  ${note}`));
  return lines.join("\n");
}

function pricesText(estimate: WorkflowEstimate): string {
  return estimate.prices.source === "published"
    ? "published prices"
    : `prices from ${estimate.prices.file} over the published ones`;
}

function reuseLine(reuse: NonNullable<WorkflowEstimate["reuse"]>): string {
  const count = reuse.reused.length;
  return `Reusing ${reuse.runDirs.join(", ")}: ${count} step instance${count === 1 ? "" : "s"} would be taken at ¥0; the rest is priced below.`;
}

function reusedCell(row: StepEstimate): string {
  const reused = row.reused ?? 0;
  if (reused === 0) return "-";
  return row.times === 0 ? (reused === 1 ? "yes" : `all ${reused}`) : `${reused} of ${reused + (row.times ?? 0)}`;
}

function callsCell(row: StepEstimate): string {
  if (row.times === 0) return (row.reused ?? 0) > 0 ? "0" : "skipped";
  if (row.times === undefined) return `? x ${row.callsEach}`;
  return row.times === 1 ? String(row.callsEach) : `${row.times} x ${row.callsEach}`;
}

function yuanCell(row: StepEstimate): string {
  const mark = row.upperBound ? "" : "*";
  if (row.times === undefined) return `${formatYuan(row.yuanEach)}/item${mark}`;
  if (row.times === 0 && (row.reused ?? 0) > 0) return formatYuan(0);
  if (row.models.length === 0 || row.times === 0) return "-";
  if (row.maxYuan === 0 && row.unpriced.length > 0) return `unpriced${mark}`;
  return `${formatYuan(row.maxYuan ?? 0)}${mark}`;
}

function totalLine(estimate: WorkflowEstimate): string {
  const calls = `${estimate.calls} call${estimate.calls === 1 ? "" : "s"}`;
  const unpriced = estimate.unpriced.length > 0 ? " + unpriced calls" : "";
  if (estimate.upperBound) return `total: at most ${formatYuan(estimate.maxYuan)}${unpriced} over ${calls}`;
  const why = [
    ...(estimate.steps.some((row) => !row.upperBound)
      ? ["steps marked * rest on what only the run knows (see notes)"]
      : []),
    ...(estimate.complete ? [] : ["maps of unknown length are not in it"]),
  ];
  return `total: ${formatYuan(estimate.maxYuan)}${unpriced} over ${calls}, not a hard bound: ${why.join("; ")}`;
}

function describeUnpriced(use: UnpricedUse): string {
  const tokens =
    use.promptTokens + use.outputTokens > 0
      ? `, up to ${count(use.promptTokens)} prompt + ${count(use.outputTokens)} output tokens`
      : "";
  return `${use.name} (${use.calls} call${use.calls === 1 ? "" : "s"}${tokens})`;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
