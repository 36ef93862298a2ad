import type { CostLedger } from "../cost/cost-ledger.js";
import { formatYuan } from "../cost/format-summary-table.js";

/** One line on what a command spent: yuan (or "unpriced" with the models), tokens, images, calls. */
export function costLine(ledger: CostLedger): string {
  const summary = ledger.summary();
  const totals = Object.values(summary.byModel).reduce(
    (sum, group) => ({
      prompt: sum.prompt + group.promptTokens,
      completion: sum.completion + group.completionTokens,
      images: sum.images + group.images,
    }),
    { prompt: 0, completion: 0, images: 0 },
  );
  const yuan = summary.complete
    ? formatYuan(summary.totalYuan)
    : summary.totalYuan > 0
      ? `${formatYuan(summary.totalYuan)} + unpriced (${summary.unpriced.models.join(", ")})`
      : `unpriced (no published price for ${summary.unpriced.models.join(", ")})`;
  const parts = [
    ...(totals.prompt + totals.completion > 0
      ? [
          `${totals.prompt.toLocaleString("en-US")} prompt + ${totals.completion.toLocaleString("en-US")} completion tokens`,
        ]
      : []),
    ...(totals.images > 0 ? [`${totals.images} image${totals.images === 1 ? "" : "s"}`] : []),
    `${summary.entries} call${summary.entries === 1 ? "" : "s"}${summary.failedAttempts > 0 ? ` (${summary.failedAttempts} failed, not billed)` : ""}`,
    ...(summary.refunds > 0 ? [`${summary.refunds} refunded`] : []),
  ];
  return `cost ${yuan}; ${parts.join(", ")}`;
}
