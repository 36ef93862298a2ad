import type { ErrorSummary } from "../run/journal-records.js";
import type { RunSummary } from "../run/run-summary.js";
import { htmlText } from "./escape-html.js";
import { formatYuan } from "../../cost/format-summary-table.js";
import { formatCount } from "./format-report-values.js";
import { findMedia, renderTiles, type MediaIndex } from "./media-index.js";
import { renderOutputValue } from "./render-output-value.js";
import { itemLabel, parseStepKey } from "./step-order.js";

/** Rows per page of a batch's items: the report shows the first page, `report-items-N.html` the rest. */
export const ITEMS_PAGE_SIZE = 100;

/** One row of a batch: the row as read from the items file, and how it ended (if it did). */
export interface BatchRow {
  readonly index: number;
  readonly line: number;
  readonly value: unknown;
  readonly state?: "done" | "failed";
  readonly output?: unknown;
  readonly error?: ErrorSummary;
}

/** One page of a batch's rows. */
export interface BatchPage {
  readonly itemsFile: string;
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  /** 1-based. */
  readonly page: number;
  readonly pages: number;
  readonly rows: readonly BatchRow[];
}

/** The file a page of rows is written to: page 1 is the report itself. */
export function itemsPageFile(page: number): string {
  return page === 1 ? "report.html" : `report-items-${page}.html`;
}

/** Adds a tile for each image or clip the page's rows made, captioned with the step and the row. */
export function addBatchMedia(page: BatchPage, summary: RunSummary, media: MediaIndex): void {
  const rows = new Map(page.rows.map((row) => [row.index, row]));
  for (const record of summary.journal) {
    if (record.type !== "step-finished" || !record.key.startsWith("items[")) continue;
    const [first] = parseStepKey(record.key);
    const row = first?.index === undefined ? undefined : rows.get(first.index);
    if (row === undefined) continue;
    const label = itemLabel(row.value, 48);
    for (const ref of findMedia(record.output))
      media.add(ref, record.key, record.id, `row ${row.index + 1}${label === undefined ? "" : `: ${label}`}`);
  }
}

function rowValue(value: unknown): string {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value).slice(0, 6);
    return `<dl class="row-value">${entries.map(([name, field]) => `<dt>${htmlText(name)}</dt><dd>${htmlText(typeof field === "string" ? field : (JSON.stringify(field) ?? ""))}</dd>`).join("")}</dl>`;
  }
  return htmlText(typeof value === "string" ? value : (JSON.stringify(value) ?? "—"));
}

function pager(page: BatchPage): string {
  if (page.pages <= 1) return "";
  const link = (number: number, text: string) =>
    `<a href="${itemsPageFile(number)}${number === 1 ? "#items" : ""}">${htmlText(text)}</a>`;
  const numbers = Array.from({ length: page.pages }, (_, index) => index + 1).filter(
    (number) => number <= 3 || number > page.pages - 2 || Math.abs(number - page.page) <= 2,
  );
  const parts: string[] = [];
  let last = 0;
  for (const number of numbers) {
    if (number - last > 1) parts.push(`<span class="muted">…</span>`);
    parts.push(number === page.page ? `<strong>${number}</strong>` : link(number, String(number)));
    last = number;
  }
  const previous = page.page > 1 ? link(page.page - 1, "← previous") : `<span class="muted">← previous</span>`;
  const next = page.page < page.pages ? link(page.page + 1, "next →") : `<span class="muted">next →</span>`;
  return `<nav class="pager">${previous} ${parts.join(" ")} ${next}</nav>`;
}

/** A page of the batch: each row's values, state, outputs and cost, then the media those rows made. */
export function renderBatchItems(page: BatchPage, summary: RunSummary, media: MediaIndex): string {
  const declared = Object.keys(summary.workflow.definition.outputs ?? {});
  const columns =
    declared.length > 0
      ? declared
      : [
          ...new Set(
            page.rows.flatMap((row) =>
              typeof row.output === "object" && row.output !== null ? Object.keys(row.output) : [],
            ),
          ),
        ].slice(0, 6);
  const stepCosts = rowCostsOf(summary);
  const body = page.rows.map((row) => {
    const state =
      row.state === undefined
        ? `<span class="badge muted">not run</span>`
        : `<span class="badge ${row.state === "done" ? "ok" : "bad"}">${row.state}</span>`;
    const outputs =
      row.error !== undefined
        ? `<td colspan="${Math.max(1, columns.length)}"><div class="error"><code>${htmlText(row.error.code)}</code> ${htmlText(row.error.message)}</div></td>`
        : columns.length === 0
          ? `<td>${renderOutputValue(row.output, { media })}</td>`
          : columns
              .map(
                (column) =>
                  `<td>${row.output === undefined ? `<span class="muted">—</span>` : renderOutputValue((row.output as Record<string, unknown>)[column], { media })}</td>`,
              )
              .join("");
    const yuan = addYuan(stepCosts.get(row.index), summary.rowYuan?.(row.index));
    const cost = yuan === undefined ? "—" : formatYuan(yuan);
    return `<tr id="row-${row.index + 1}"><td class="num muted">${row.index + 1}</td><td>${rowValue(row.value)}</td><td>${state}</td>${outputs}<td class="num">${htmlText(cost)}</td></tr>`;
  });
  const head = `<tr><th scope="col" class="num">Row</th><th scope="col">Input</th><th scope="col">Status</th>${(columns.length === 0 ? ["Output"] : columns).map((column) => `<th scope="col">${htmlText(column)}</th>`).join("")}<th scope="col" class="num">Cost</th></tr>`;
  const first = page.rows[0]?.index ?? 0;
  const summaryLine = `<p>${formatCount(page.total)} rows from <code>${htmlText(page.itemsFile)}</code>: <strong>${formatCount(page.done)}</strong> done, <strong class="${page.failed > 0 ? "bad-text" : ""}">${formatCount(page.failed)}</strong> failed${page.total - page.done - page.failed > 0 ? `, ${formatCount(page.total - page.done - page.failed)} not run yet` : ""}.${page.pages > 1 ? ` Rows ${formatCount(first + 1)}–${formatCount(first + page.rows.length)} (page ${page.page} of ${page.pages}).` : ""}</p>`;
  const tiles = renderTiles(media.tiles());
  return `${summaryLine}${pager(page)}<table id="items-table" class="grid items"><thead>${head}</thead><tbody>${body.join("\n")}</tbody></table>${pager(page)}${tiles === "" ? "" : `<h3 class="sub">Images and audio of these rows</h3>${tiles}`}`;
}

// A row's steps still in byTag.step and those the run let go of (a long batch's later rows), which it kept by row.
function addYuan(kept: number | undefined, released: number | undefined): number | undefined {
  if (kept === undefined) return released;
  return released === undefined ? kept : kept + released;
}

// Every page reads the same totals: summed by row once per run, not once per page (a batch has rows / 100 pages).
const rowCosts = new WeakMap<RunSummary["cost"], Map<number, number>>();

function rowCostsOf(summary: RunSummary): Map<number, number> {
  const known = rowCosts.get(summary.cost);
  if (known !== undefined) return known;
  const costs = new Map<number, number>();
  for (const [key, totals] of Object.entries(summary.cost.byTag.step ?? {})) {
    const index = parseStepKey(key)[0]?.index;
    if (key.startsWith("items[") && index !== undefined && totals.yuan !== null)
      costs.set(index, (costs.get(index) ?? 0) + totals.yuan);
  }
  rowCosts.set(summary.cost, costs);
  return costs;
}
