import { formatYuan } from "../../cost/format-summary-table.js";
import type { RunSummary } from "../run/run-summary.js";
import { collectStepRows, type StepRow } from "./collect-step-rows.js";
import { htmlText } from "./escape-html.js";
import { formatDuration, formatTime } from "./format-report-values.js";
import { findMedia, MediaIndex, renderTiles, type MediaRef } from "./media-index.js";
import { renderApprovals } from "./render-approvals.js";
import { renderBanner } from "./render-banner.js";
import { addBatchMedia, renderBatchItems, type BatchPage } from "./render-batch-items.js";
import { formatTotalCost, renderCostTable } from "./render-cost-table.js";
import { renderOutputValue, type ValueContext } from "./render-output-value.js";
import { renderStepDetail, renderStepTable } from "./render-steps.js";
import { REPORT_STYLES } from "./report-styles.js";
import { itemLabel, mapItemsOf, parseStepKey } from "./step-order.js";

/** Step instances shown in the table and in detail; a large batch lists the rest in journal.jsonl. */
export const MAX_REPORTED_STEPS = 500;

const STATUS_TEXT: Readonly<Record<RunSummary["status"], string>> = {
  done: "Done",
  stopped: "Stopped",
  failed: "Failed",
  waiting: "Waiting",
};

/** What the report shows beyond the run summary, read from the run directory by its writer. */
export interface ReportExtras {
  /** Input values (paths, data URIs) copied into artifacts/, so the page can show the photo or play the audio. */
  readonly inputMedia?: ReadonlyMap<string, MediaRef>;
  /** A batch run's first page of rows (the others are pages of their own). */
  readonly batch?: BatchPage;
}

function fact(label: string, value: string): string {
  return `<div class="fact"><span class="label">${htmlText(label)}</span><span class="value">${htmlText(value)}</span></div>`;
}

function values(record: Readonly<Record<string, unknown>> | undefined, empty: string, context: ValueContext): string {
  const names = Object.keys(record ?? {});
  if (record === undefined || names.length === 0) return `<p class="muted">${htmlText(empty)}</p>`;
  return `<dl class="values">${names.map((name) => `<dt>${htmlText(name)}</dt><dd>${renderOutputValue(record[name], context)}</dd>`).join("")}</dl>`;
}

/** Tiles for the media inputs (`photo`, `photos[1]`), captioned with the input and the file's name. */
function addInputMedia(summary: RunSummary, media: MediaIndex, skip: ReadonlySet<string>): void {
  const visit = (value: unknown, owner: string) => {
    if (typeof value === "string") {
      const ref = media.alias(value);
      if (ref !== undefined) media.add(ref, `inputs.${owner}`, owner, itemLabel(value, 60));
    } else if (Array.isArray(value)) {
      value.forEach((element, index) => visit(element, `${owner}[${index}]`));
    }
  };
  for (const [name, value] of Object.entries(summary.inputs)) if (!skip.has(name)) visit(value, name);
}

/** Tiles for every image and clip a step made, in the file's order, captioned with the step and its map item. */
function addStepMedia(rows: readonly StepRow[], summary: RunSummary, media: MediaIndex): void {
  const mapItems = mapItemsOf(summary);
  for (const row of rows) {
    // A container's output is its children's, which have tiles of their own.
    if (row.status !== "done" || row.kind === "map" || row.kind === "parallel" || row.key.startsWith("items["))
      continue;
    const segments = parseStepKey(row.key);
    const item = segments.length > 1 ? segments[0] : undefined;
    const label = item?.index === undefined ? undefined : itemLabel(mapItems.get(item.id)?.[item.index]);
    const detail =
      item?.index === undefined ? undefined : `${item.id}[${item.index}]${label === undefined ? "" : `: ${label}`}`;
    const found = findMedia(row.output);
    found.forEach((ref, index) => {
      const which =
        found.length > 1
          ? `${ref.mime.startsWith("image/") ? "image" : "clip"} ${index + 1} of ${found.length}`
          : undefined;
      media.add(ref, row.key, row.id, [detail, which].filter((part) => part !== undefined).join(" · ") || undefined);
    });
  }
}

/** A label for a map item's step section: the item the map gave it. */
function itemLabelOf(row: StepRow, mapItems: ReadonlyMap<string, readonly unknown[]>): string | undefined {
  const [item] = parseStepKey(row.key);
  if (item?.index === undefined || row.key.startsWith("items[")) return undefined;
  const label = itemLabel(mapItems.get(item.id)?.[item.index], 200);
  return label === undefined ? undefined : `${item.id}[${item.index}]: ${label}`;
}

/** Options of reportPage. */
export interface ReportPageOptions {
  /** CSS added after the report's own. */
  readonly styles?: string;
  /** Allow images and audio given inline as data URIs (a page that lives outside any run directory). */
  readonly inlineMedia?: boolean;
}

/** The page around a report's body: inline styles, no scripts, nothing loaded from elsewhere. */
export function reportPage(title: string, body: string, options: ReportPageOptions = {}): string {
  const media = options.inlineMedia === true ? "'self' data:" : "'self'";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${media}; media-src ${media}; style-src 'unsafe-inline'">
<title>${htmlText(title)}</title>
<style>${REPORT_STYLES}${options.styles ?? ""}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * The run report as one self-contained HTML page (inline CSS, no scripts, no external assets):
 * images and audio are referenced by their path under artifacts/, so the run directory opens as is.
 * Each image or clip is shown once, captioned with its step and map item; other mentions link to it.
 * Model text is rendered as Markdown with raw HTML escaped, and API keys are redacted.
 */
export function renderReport(summary: RunSummary, extras: ReportExtras = {}): string {
  const rows = collectStepRows(summary);
  const batch = extras.batch;
  // A batch's step instances are its rows': the items table shows them, the step table only the first rows'.
  const listed =
    batch === undefined
      ? rows
      : rows.filter((row) => !row.key.startsWith("items[") || (parseStepKey(row.key)[0]?.index ?? 0) < 5);
  const shown = listed.slice(0, MAX_REPORTED_STEPS);
  const hidden = listed.length - shown.length;
  const more =
    hidden === 0
      ? ""
      : `<p class="muted">${hidden} more step instances are not shown; journal.jsonl has every one.</p>`;
  const media = new MediaIndex(extras.inputMedia);
  const itemsInput = Object.entries(summary.workflow.definition.inputs ?? {}).find(
    ([, spec]) => spec.type === "items",
  )?.[0];
  addInputMedia(summary, media, new Set(itemsInput === undefined ? [] : [itemsInput]));
  const inputTiles = media.tiles();
  addStepMedia(shown, summary, media);
  const stepTiles = media.tiles((tile) => !tile.owner.startsWith("inputs."));
  const context: ValueContext = { media };
  const mapItems = mapItemsOf(summary);

  const attempts = 1 + summary.journal.filter((record) => record.type === "run-resumed").length;
  const durationMs = Date.parse(summary.finishedAt) - Date.parse(summary.startedAt);
  const name = summary.workflow.name;
  const done = rows.filter((row) => row.status === "done").length;
  const facts = [
    fact("Status", STATUS_TEXT[summary.status]),
    fact("Started", formatTime(summary.startedAt)),
    fact("Duration", formatDuration(durationMs) + (attempts > 1 ? ` (${attempts} attempts)` : "")),
    batch === undefined
      ? fact("Steps", `${done} of ${rows.length} done`)
      : fact("Rows", `${batch.done} of ${batch.total} done`),
    fact(
      "Cost",
      summary.cost.complete
        ? formatTotalCost(summary.cost)
        : `${summary.cost.totalYuan > 0 ? `${formatYuan(summary.cost.totalYuan)} + ` : ""}unpriced`,
    ),
  ].join("");

  // A batch's rows are its inputs and its results; the inputs every row shares are listed under them.
  const shared =
    batch === undefined
      ? summary.inputs
      : Object.fromEntries(
          Object.entries(summary.inputs).filter(([input]) => input !== itemsInput && !rowsGive(batch, input)),
        );
  const inputs =
    batch === undefined
      ? `<h2>Inputs</h2>\n${renderTiles(inputTiles)}${values(withoutShownMedia(summary.inputs, media), inputTiles.length > 0 ? "" : "No inputs.", context)}`
      : `<h2 id="items">Items</h2>\n${renderBatchItems(batch, summary, itemsMedia(batch, summary, extras))}${Object.keys(shared).length === 0 ? "" : `<h3 class="sub">Inputs every row shares</h3>${values(shared, "", context)}`}`;
  const outputs =
    batch !== undefined
      ? ""
      : `<h2>Outputs</h2>\n<div id="outputs">${summary.status === "done" ? values(summary.outputs, "No outputs.", context) : `<p class="muted">The run did not finish, so it has no outputs yet; finished steps are below.</p>`}</div>`;
  const gallery =
    stepTiles.length === 0
      ? ""
      : `<h2>Images and audio</h2>\n<p class="muted">Each thumbnail opens the full-size image.</p>${renderTiles(stepTiles)}`;
  const details =
    batch !== undefined
      ? ""
      : `<h2>Step details</h2>\n${shown.map((row) => renderStepDetail(row, context, itemLabelOf(row, mapItems))).join("\n")}${more}`;
  const description = summary.workflow.definition.description;
  const body = `<h1>${htmlText(name)}</h1>
${description === undefined ? "" : `<p class="description">${htmlText(description)}</p>`}
<p class="subtitle">Run <code>${htmlText(summary.runId)}</code> · <code>${htmlText(summary.runDir)}</code></p>
${renderBanner(summary)}
<div class="facts">${facts}</div>
${inputs}
${outputs}
${gallery}
${renderApprovals(summary.journal, summary.runDir, context, summary.approveFlags)}
<h2>Steps</h2>
${renderStepTable(shown, { link: batch === undefined })}${batch === undefined ? more : `<p class="muted">The steps of the first rows; the items above show every row.</p>`}
${details}
<h2>Cost by model</h2>
${renderCostTable(summary.cost)}
<footer>Written by svc-flow at ${htmlText(formatTime(summary.finishedAt))}. Prices in yuan (CNY); "unpriced" means tokens were used by a model without a known price, not that they were free.</footer>`;
  return reportPage(`${name}: ${STATUS_TEXT[summary.status].toLowerCase()}`, body);
}

/** The media of a batch page's rows, in an index of their own (with the input media, which rows may name). */
function itemsMedia(page: BatchPage, summary: RunSummary, extras: ReportExtras): MediaIndex {
  const media = new MediaIndex(extras.inputMedia);
  addBatchMedia(page, summary, media);
  return media;
}

/** Whether the batch's rows give this input (each row an object of input values). */
function rowsGive(page: BatchPage, input: string): boolean {
  return page.rows.some((row) => typeof row.value === "object" && row.value !== null && input in row.value);
}

/** Inputs without those already shown as tiles (a list of photos is its tiles). */
function withoutShownMedia(inputs: Readonly<Record<string, unknown>>, media: MediaIndex): Record<string, unknown> {
  const shown = (value: unknown): boolean =>
    typeof value === "string"
      ? media.alias(value) !== undefined
      : Array.isArray(value) && value.length > 0 && value.every(shown);
  return Object.fromEntries(Object.entries(inputs).filter(([, value]) => !shown(value)));
}

/** A batch page of its own (`report-items-N.html`): the rows, their media, and a link back to the report. */
export function renderItemsPage(summary: RunSummary, page: BatchPage, extras: ReportExtras = {}): string {
  const body = `<h1>${htmlText(summary.workflow.name)}: rows</h1>
<p class="subtitle"><a href="report.html">← back to the report</a> · Run <code>${htmlText(summary.runId)}</code></p>
${renderBatchItems(page, summary, itemsMedia(page, summary, extras))}`;
  return reportPage(`${summary.workflow.name}: rows, page ${page.page}`, body);
}
