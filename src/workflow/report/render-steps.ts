import type { StepRow } from "./collect-step-rows.js";
import { htmlText } from "./escape-html.js";
import { formatCost, formatCount, formatDuration } from "./format-report-values.js";
import { renderOutputValue } from "./render-output-value.js";

const STATUS_CLASS: Readonly<Record<StepRow["status"], string>> = { done: "ok", failed: "bad", skipped: "muted", "not run": "muted" };

/** An anchor id for a step key (`posters[2].poster` → `step-posters-2-poster`), unique per key. */
function anchor(key: string): string {
  return `step-${key.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
}

function badge(status: StepRow["status"]): string {
  return `<span class="badge ${STATUS_CLASS[status]}">${htmlText(status)}</span>`;
}

function models(row: StepRow): string {
  if (row.modelAsked === undefined && row.modelServed === undefined) return `<span class="muted">—</span>`;
  if (row.modelServed === undefined || row.modelServed === row.modelAsked) return htmlText(row.modelAsked ?? row.modelServed ?? "");
  return `${htmlText(row.modelAsked ?? "?")} → ${htmlText(row.modelServed)}`;
}

function attempts(row: StepRow): string {
  if (row.attempts === 0) return `<span class="muted">—</span>`;
  const retries = row.attempts - 1;
  return retries > 0 ? `${row.attempts} <span class="warn">(${retries} retr${retries === 1 ? "y" : "ies"})</span>` : String(row.attempts);
}

function tokens(row: StepRow): string {
  if (row.cost === undefined) return `<span class="muted">—</span>`;
  return `${formatCount(row.cost.promptTokens)} / ${formatCount(row.cost.completionTokens)}`;
}

/** The step table: one row per step instance, linking to its detail. */
export function renderStepTable(rows: readonly StepRow[]): string {
  const body = rows.map((row) => {
    const cost = formatCost(row.cost);
    return `<tr><th scope="row"><a href="#${anchor(row.key)}">${htmlText(row.key)}</a></th><td>${htmlText(row.kind)}</td><td>${models(row)}</td><td>${badge(row.status)}</td><td class="num">${row.durationMs === undefined ? "—" : htmlText(formatDuration(row.durationMs))}</td><td class="num">${attempts(row)}</td><td>${row.fallbacks.length === 0 ? `<span class="muted">—</span>` : htmlText(row.fallbacks.join(", "))}</td><td class="num${cost.includes("unpriced") ? " unpriced" : ""}">${htmlText(cost)}</td><td class="num">${tokens(row)}</td></tr>`;
  });
  return `<table id="step-table" class="grid">
<thead><tr><th scope="col">Step</th><th scope="col">Kind</th><th scope="col">Model asked → served</th><th scope="col">Status</th><th scope="col" class="num">Duration</th><th scope="col" class="num">Attempts</th><th scope="col">Fell back from</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Tokens in / out</th></tr></thead>
<tbody>${body.join("\n")}</tbody>
</table>`;
}

function renderItems(row: StepRow): string {
  const items = row.items!;
  const total = items.total === undefined ? "" : ` of ${formatCount(items.total)}`;
  const head = `<p>Items: <strong>${formatCount(items.done)}</strong> done, <strong class="${items.failed > 0 ? "bad-text" : ""}">${formatCount(items.failed)}</strong> failed${total}.</p>`;
  if (items.errors.length === 0) return head;
  const list = items.errors.map(({ index, error }) => `<li><code>[${index}]</code> <code>${htmlText(error.code)}</code> ${htmlText(error.message)}</li>`).join("");
  return `${head}<ul class="errors">${list}</ul>`;
}

/** One step's detail: its output (text, media, JSON), its map items, or its error. */
export function renderStepDetail(row: StepRow): string {
  const parts: string[] = [];
  if (row.error !== undefined) parts.push(`<div class="error"><code>${htmlText(row.error.code)}</code> ${htmlText(row.error.message)}</div>`);
  if (row.items !== undefined) parts.push(renderItems(row));
  if (row.status === "done") {
    // A map's items and a parallel's children have their own sections; the container shows its output folded.
    const output = renderOutputValue(row.output);
    parts.push(row.kind === "map" || row.kind === "parallel" ? `<details><summary>Output</summary>${output}</details>` : output);
  }
  if (row.status === "skipped") parts.push(`<p class="muted">Skipped: its <code>if:</code> was false.</p>`);
  if (row.status === "not run") parts.push(`<p class="muted">Not reached in this run.</p>`);
  if (row.fallbacks.length > 0) parts.push(`<p class="warn">Fell back from ${htmlText(row.fallbacks.join(", "))}.</p>`);
  const meta = [row.kind, row.durationMs === undefined ? "" : formatDuration(row.durationMs), formatCost(row.cost) === "—" ? "" : formatCost(row.cost)].filter((part) => part !== "");
  return `<section class="step" id="${anchor(row.key)}"><h3>${htmlText(row.key)} ${badge(row.status)} <span class="meta">${htmlText(meta.join(" · "))}</span></h3>${parts.join("\n")}</section>`;
}
