import type { CostSummary, CostTotals } from "./summarize-entries.js";

const COLUMNS = ["calls", "failed", "prompt", "completion", "images", "yuan"] as const;

/** Yuan as people read it: four decimals, or "<¥0.0001" for a non-zero amount below that. */
export function formatYuan(yuan: number): string {
  if (yuan > 0 && yuan < 0.00005) return "<¥0.0001";
  return `¥${yuan.toFixed(4)}`;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? "" : "s"}`;
}

function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** A group's cost cell: yuan, "unpriced", or both when the group mixes them. */
function costCell(totals: CostTotals): string {
  if (totals.unpricedCalls === 0) return formatYuan(totals.yuan ?? 0);
  if (totals.yuan === null) return "unpriced";
  return `${formatYuan(totals.yuan)} + unpriced`;
}

function row(label: string, totals: CostTotals): string[] {
  return [
    label,
    formatCount(totals.calls),
    formatCount(totals.failed),
    formatCount(totals.promptTokens),
    formatCount(totals.completionTokens),
    formatCount(totals.images),
    costCell(totals),
  ];
}

function renderTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((line) => line[column]!.length)));
  const render = (cells: string[]): string =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ");
  return [render(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(render)];
}

function section(title: string, groups: Record<string, CostTotals>): string[] {
  const names = Object.keys(groups).sort();
  if (names.length === 0) return [];
  return renderTable(
    [title, ...COLUMNS],
    names.map((name) => row(name, groups[name]!)),
  );
}

/** The summary as an aligned text table for people: by model, by each tag, then the totals. */
export function formatSummaryTable(summary: CostSummary): string {
  const lines: string[] = [];
  lines.push(...section("model", summary.byModel));
  for (const tag of Object.keys(summary.byTag).sort()) {
    lines.push("", ...section(tag, summary.byTag[tag]!));
  }
  if (lines.length > 0) lines.push("");
  const total = formatYuan(summary.totalYuan);
  lines.push(
    `total ${total}${summary.complete ? "" : " + unpriced usage"} over ${plural(summary.entries, "call")} ` +
      `(${summary.failedAttempts} failed${summary.refunds > 0 ? `, ${summary.refunds} refunded` : ""})`,
  );
  if (!summary.complete) {
    const tokens = summary.unpriced.promptTokens + summary.unpriced.completionTokens;
    lines.push(
      `unpriced: ${summary.unpriced.models.join(", ")} (${plural(summary.unpriced.calls, "call")}, ` +
        `${formatCount(tokens)} tokens); add their prices to a price file to count them`,
    );
  }
  if (summary.exceededEstimates > 0) {
    lines.push(
      `${plural(summary.exceededEstimates, "call")} cost more than the estimate reserved for them ` +
        "(see exceededEstimate in the entries); set maxTokens so estimates are hard bounds",
    );
  }
  if (summary.usageMissing > 0) {
    lines.push(
      `${plural(summary.usageMissing, "answered call")} reported no usage; counted at the estimate reserved for them`,
    );
  }
  if (summary.budget) {
    const { maxYuan, spentYuan, remainingYuan } = summary.budget;
    lines.push(`budget ${formatYuan(spentYuan)} of ${formatYuan(maxYuan)} spent, ${formatYuan(remainingYuan)} left`);
  }
  return lines.join("\n");
}
