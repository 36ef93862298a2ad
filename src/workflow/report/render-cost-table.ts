import { formatYuan } from "../../cost/format-summary-table.js";
import { emptyTotals, mergeTotals, type CostSummary, type CostTotals } from "../../cost/summarize-entries.js";
import { htmlText } from "./escape-html.js";
import { formatCost, formatCount } from "./format-report-values.js";

/** The run's total as one phrase: `¥0.1234`, plus the unpriced usage when there was some (never counted as ¥0). */
export function formatTotalCost(cost: CostSummary): string {
  if (cost.complete) return formatYuan(cost.totalYuan);
  const tokens = cost.unpriced.promptTokens + cost.unpriced.completionTokens;
  const unpriced = `unpriced: ${formatCount(cost.unpriced.calls)} call${cost.unpriced.calls === 1 ? "" : "s"}, ${formatCount(tokens)} tokens`;
  return cost.entries === cost.unpriced.calls ? unpriced : `${formatYuan(cost.totalYuan)} + ${unpriced}`;
}

function row(label: string, totals: CostTotals): string {
  const cost = formatCost(totals);
  const costClass = cost.includes("unpriced") ? "num unpriced" : "num";
  return `<tr><th scope="row">${htmlText(label)}</th><td class="num">${formatCount(totals.calls)}</td><td class="num">${formatCount(totals.failed)}</td><td class="num">${formatCount(totals.promptTokens)}</td><td class="num">${formatCount(totals.completionTokens)}</td><td class="num">${formatCount(totals.images)}</td><td class="${costClass}">${htmlText(cost)}</td></tr>`;
}

/** The cost table by model (music by operation), with the run's totals and budget under it. */
export function renderCostTable(cost: CostSummary): string {
  const models = Object.keys(cost.byModel).sort();
  // The footer's cost is the run's own total (formatTotalCost); the counts are the models' sums.
  const totals = Object.values(cost.byModel).reduce(mergeTotals, emptyTotals());
  const body =
    models.length === 0
      ? `<tr><td colspan="7" class="muted">No billed calls.</td></tr>`
      : models.map((model) => row(model, cost.byModel[model]!)).join("");
  const notes = [
    cost.failedAttempts > 0
      ? `${formatCount(cost.failedAttempts)} failed attempt${cost.failedAttempts === 1 ? "" : "s"}`
      : "",
    cost.refunds > 0 ? `${formatCount(cost.refunds)} music refund${cost.refunds === 1 ? "" : "s"} taken off` : "",
    cost.unpriced.models.length > 0
      ? `no price known for ${cost.unpriced.models.join(", ")}: their tokens are counted, their cost is not`
      : "",
    cost.budget === undefined
      ? ""
      : `budget ${formatYuan(cost.budget.maxYuan)}: ${formatYuan(cost.budget.spentYuan)} spent, ${formatYuan(cost.budget.remainingYuan)} left`,
  ].filter((note) => note !== "");
  return `<table id="cost-table" class="grid">
<thead><tr><th scope="col">Model</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Prompt tokens</th><th scope="col" class="num">Completion tokens</th><th scope="col" class="num">Images</th><th scope="col" class="num">Cost</th></tr></thead>
<tbody>${body}</tbody>
<tfoot><tr class="total"><th scope="row">Total</th><td class="num">${formatCount(totals.calls)}</td><td class="num">${formatCount(totals.failed)}</td><td class="num">${formatCount(totals.promptTokens)}</td><td class="num">${formatCount(totals.completionTokens)}</td><td class="num">${formatCount(totals.images)}</td><td class="num" id="cost-total">${htmlText(formatTotalCost(cost))}</td></tr></tfoot>
</table>${notes.length === 0 ? "" : `<ul class="notes">${notes.map((note) => `<li>${htmlText(note)}</li>`).join("")}</ul>`}`;
}
