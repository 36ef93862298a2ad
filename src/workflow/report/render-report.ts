import { formatYuan } from "../../cost/format-summary-table.js";
import type { RunSummary } from "../run/run-summary.js";
import { collectStepRows } from "./collect-step-rows.js";
import { renderApprovals } from "./render-approvals.js";
import { htmlText } from "./escape-html.js";
import { formatDuration, formatTime } from "./format-report-values.js";
import { formatTotalCost, renderCostTable } from "./render-cost-table.js";
import { renderOutputValue } from "./render-output-value.js";
import { renderStepDetail, renderStepTable } from "./render-steps.js";
import { REPORT_STYLES } from "./report-styles.js";

/** Step instances shown in the table and in detail; a large batch lists the rest in journal.jsonl. */
export const MAX_REPORTED_STEPS = 500;

const STATUS_TEXT: Readonly<Record<RunSummary["status"], string>> = { done: "Done", stopped: "Stopped", failed: "Failed", waiting: "Waiting" };

function banner(summary: RunSummary): string {
  const resume = `svc-flow resume ${summary.runDir}`;
  if (summary.status === "done") return `<div class="banner done"><strong>Done.</strong> Every step finished.</div>`;
  if (summary.status === "waiting") return `<div class="banner waiting"><strong>Waiting for a decision.</strong> Everything that did not need one is done; the questions are under Approvals.</div>`;
  const why = summary.status === "stopped" ? (summary.reason === "budget" ? " by the budget" : summary.reason === "interrupted" ? " (interrupted)" : "") : "";
  const message = summary.error === undefined ? "" : `<p><code>${htmlText(summary.error.code)}</code> ${htmlText(summary.error.message)}</p>`;
  const fix = summary.status === "stopped" && summary.reason === "budget" ? " --budget YUAN" : "";
  return `<div class="banner ${summary.status}"><strong>${STATUS_TEXT[summary.status]}${htmlText(why)}.</strong> Finished steps are kept.${message}<p>Continue with: <code class="command">${htmlText(resume + fix)}</code></p></div>`;
}

function fact(label: string, value: string): string {
  return `<div class="fact"><span class="label">${htmlText(label)}</span><span class="value">${htmlText(value)}</span></div>`;
}

function values(record: Readonly<Record<string, unknown>> | undefined, empty: string): string {
  const names = Object.keys(record ?? {});
  if (record === undefined || names.length === 0) return `<p class="muted">${htmlText(empty)}</p>`;
  return `<dl class="values">${names.map((name) => `<dt>${htmlText(name)}</dt><dd>${renderOutputValue(record[name])}</dd>`).join("")}</dl>`;
}

/**
 * The run report as one self-contained HTML page (inline CSS, no scripts, no external assets):
 * images and audio are referenced by their path under artifacts/, so the run directory opens as is.
 * Every text is escaped and API keys are redacted.
 */
export function renderReport(summary: RunSummary): string {
  const rows = collectStepRows(summary);
  const shown = rows.slice(0, MAX_REPORTED_STEPS);
  const hidden = rows.length - shown.length;
  const more = hidden === 0 ? "" : `<p class="muted">${hidden} more step instances are not shown; journal.jsonl has every one.</p>`;
  const attempts = 1 + summary.journal.filter((record) => record.type === "run-resumed").length;
  const durationMs = Date.parse(summary.finishedAt) - Date.parse(summary.startedAt);
  const name = summary.workflow.name;
  const facts = [
    fact("Status", STATUS_TEXT[summary.status]),
    fact("Started", formatTime(summary.startedAt)),
    fact("Finished", formatTime(summary.finishedAt)),
    fact("Duration", formatDuration(durationMs) + (attempts > 1 ? ` (${attempts} attempts)` : "")),
    fact("Steps", `${rows.filter((row) => row.status === "done").length} of ${rows.length} done`),
    fact("Cost", summary.cost.complete ? formatTotalCost(summary.cost) : `${summary.cost.totalYuan > 0 ? formatYuan(summary.cost.totalYuan) + " + " : ""}unpriced`),
  ].join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'">
<title>${htmlText(`${name}: ${STATUS_TEXT[summary.status].toLowerCase()}`)}</title>
<style>${REPORT_STYLES}</style>
</head>
<body>
<main>
<h1>${htmlText(name)}</h1>
<p class="subtitle">Run <code>${htmlText(summary.runId)}</code> · <code>${htmlText(summary.runDir)}</code></p>
${banner(summary)}
<div class="facts">${facts}</div>
<h2>Inputs</h2>
${values(summary.inputs, "No inputs.")}
<h2>Outputs</h2>
${summary.status === "done" ? values(summary.outputs, "No outputs.") : `<p class="muted">The run did not finish, so it has no outputs yet; finished steps are below.</p>`}
${renderApprovals(summary.journal, summary.runDir)}
<h2>Steps</h2>
${renderStepTable(shown)}${more}
<h2>Cost by model</h2>
${renderCostTable(summary.cost)}
<h2>Step details</h2>
${shown.map(renderStepDetail).join("\n")}${more}
<footer>Written by svc-flow at ${htmlText(formatTime(summary.finishedAt))}. Prices in yuan (CNY); "unpriced" means tokens were used by a model without a known price, not that they were free.</footer>
</main>
</body>
</html>
`;
}
