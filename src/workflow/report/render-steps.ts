import type { StepRow } from "./collect-step-rows.js";
import { htmlText } from "./escape-html.js";
import { formatCost, formatCount, formatDuration } from "./format-report-values.js";
import { renderOutputValue, type ValueContext } from "./render-output-value.js";
import { parseStepKey } from "./step-order.js";

const STATUS_CLASS: Readonly<Record<StepRow["status"], string>> = {
  done: "ok",
  failed: "bad",
  skipped: "muted",
  "not run": "muted",
};

/** An anchor id for a step key (`posters[2].poster` → `step-posters-2-poster`), unique per key. */
export function stepAnchor(key: string): string {
  return `step-${key.replace(/[^A-Za-z0-9_-]+/g, "-")}`;
}

function badge(row: StepRow): string {
  // A result taken from an earlier run is done, at no cost; the badge says where it came from.
  const label = row.reused !== undefined && row.status === "done" ? "reused" : row.status;
  return `<span class="badge ${STATUS_CLASS[row.status]}">${htmlText(label)}</span>`;
}

const DASH = `<span class="muted">—</span>`;

function models(row: StepRow): string {
  if (row.modelAsked === undefined && row.modelServed === undefined) return DASH;
  if (row.modelServed === undefined || row.modelServed === row.modelAsked)
    return htmlText(row.modelAsked ?? row.modelServed ?? "");
  return `${htmlText(row.modelAsked ?? "?")} → ${htmlText(row.modelServed)}`;
}

function plural(count: number, word: string, many = `${word}s`): string {
  return `${formatCount(count)} ${count === 1 ? word : many}`;
}

/** Calls a step made: an agent's are its turns; a failed call that was tried again is a retry. */
function calls(row: StepRow): string {
  if (row.attempts === 0) return DASH;
  const answered = row.attempts - row.failedAttempts;
  const main = row.kind === "agent" ? plural(answered, "turn") : formatCount(answered);
  return row.failedAttempts > 0
    ? `${main} <span class="warn">+ ${plural(row.failedAttempts, "failed call")}</span>`
    : main;
}

function tokens(row: StepRow): string {
  if (row.cost === undefined) return DASH;
  return `${formatCount(row.cost.promptTokens)} / ${formatCount(row.cost.completionTokens)}`;
}

/** A step's name in the table: map items indented under their map, as `posters[1] › final`. */
function stepName(row: StepRow, link: boolean): string {
  const segments = parseStepKey(row.key);
  const name = segments
    .map((segment) => (segment.index === undefined ? segment.id : `${segment.id}[${segment.index}]`))
    .join(" › ");
  const text = link ? `<a href="#${stepAnchor(row.key)}">${htmlText(name)}</a>` : htmlText(name);
  return link ? `<span class="depth-${Math.min(segments.length - 1, 3)}">${text}</span>` : text;
}

function tableRow(row: StepRow, link: boolean): string {
  const cost = formatCost(row.cost);
  return `<tr><th scope="row">${stepName(row, link)}</th><td>${htmlText(row.kind)}</td><td>${models(row)}</td><td>${badge(row)}</td><td class="num">${row.durationMs === undefined ? "—" : htmlText(formatDuration(row.durationMs))}</td><td class="num">${calls(row)}</td><td>${row.fallbacks.length === 0 ? DASH : htmlText(row.fallbacks.join(", "))}</td><td class="num${cost.includes("unpriced") ? " unpriced" : ""}">${htmlText(cost)}</td><td class="num">${tokens(row)}</td></tr>`;
}

/** The step table in the file's order, one row per step instance, each linking to its detail. */
export function renderStepTable(rows: readonly StepRow[], options: { readonly link?: boolean } = {}): string {
  const link = options.link ?? true;
  return `<table id="step-table" class="grid">
<thead><tr><th scope="col">Step</th><th scope="col">Kind</th><th scope="col">Model asked → served</th><th scope="col">Status</th><th scope="col" class="num">Duration</th><th scope="col" class="num">Calls</th><th scope="col">Fell back from</th><th scope="col" class="num">Cost</th><th scope="col" class="num">Tokens in / out</th></tr></thead>
<tbody>${rows.map((row) => tableRow(row, link)).join("\n")}</tbody>
</table>`;
}

function renderItems(row: StepRow): string {
  const items = row.items!;
  const total = items.total === undefined ? "" : ` of ${formatCount(items.total)}`;
  const head = `<p>Items: <strong>${formatCount(items.done)}</strong> done, <strong class="${items.failed > 0 ? "bad-text" : ""}">${formatCount(items.failed)}</strong> failed${total}.</p>`;
  if (items.errors.length === 0) return head;
  const list = items.errors
    .map(
      ({ index, error }) =>
        `<li><code>[${index}]</code> <code>${htmlText(error.code)}</code> ${htmlText(error.message)}</li>`,
    )
    .join("");
  return `${head}<ul class="errors">${list}</ul>`;
}

/** One step's detail: its output (text, lists, links to its media), its map items, or its error. */
export function renderStepDetail(row: StepRow, context: ValueContext, itemLabel?: string): string {
  const parts: string[] = [];
  if (itemLabel !== undefined) parts.push(`<p class="item-label">${htmlText(itemLabel)}</p>`);
  if (row.error !== undefined)
    parts.push(`<div class="error"><code>${htmlText(row.error.code)}</code> ${htmlText(row.error.message)}</div>`);
  if (row.items !== undefined) parts.push(renderItems(row));
  if (row.status === "done") {
    const output = renderOutputValue(row.output, { ...context, owner: row.key });
    // A parallel's children have sections of their own; its output is only folded.
    parts.push(
      row.kind === "parallel"
        ? `<details><summary>Output</summary>${output}</details>`
        : `<div class="output">${output}</div>`,
    );
  }
  if (row.reused !== undefined)
    parts.push(
      `<p class="muted">Reused from <code>${htmlText(row.reused.runDir)}</code> (${htmlText(row.reused.key)}): its step key matched, so nothing was sent or paid.</p>`,
    );
  if (row.status === "skipped") parts.push(`<p class="muted">Skipped: its <code>if:</code> was false.</p>`);
  if (row.status === "not run") parts.push(`<p class="muted">Not reached in this run.</p>`);
  if (row.fallbacks.length > 0) parts.push(`<p class="warn">Fell back from ${htmlText(row.fallbacks.join(", "))}.</p>`);
  const meta = [
    row.kind,
    row.durationMs === undefined ? "" : formatDuration(row.durationMs),
    row.kind === "agent" && row.attempts > 0 ? plural(row.attempts - row.failedAttempts, "turn") : "",
    formatCost(row.cost) === "—" ? "" : formatCost(row.cost),
  ].filter((part) => part !== "");
  return `<section class="step" id="${stepAnchor(row.key)}"><h3>${stepName(row, false)} ${badge(row)} <span class="meta">${htmlText(meta.join(" · "))}</span></h3>${parts.join("\n")}</section>`;
}
