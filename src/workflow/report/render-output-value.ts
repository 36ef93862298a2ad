import { isPlainObject } from "../plain-object.js";
import { htmlText } from "./escape-html.js";
import { formatCount } from "./format-report-values.js";
import { findMedia, isMediaRef, renderChip, renderTile, type MediaIndex } from "./media-index.js";
import { isProse, renderMarkdown } from "./render-markdown.js";

/** Where a value is shown: the page's media (linked to, not repeated) and the step it belongs to. */
export interface ValueContext {
  readonly media: MediaIndex;
  /** The step key whose output this is, so its own tile is the one linked. */
  readonly owner?: string;
  /** How often each artifact was linked in this value so far: equal images in a list link to successive tiles. */
  readonly seen?: Map<string, number>;
}

// Deeper than this, a value is shown as JSON rather than as nested lists.
const MAX_DEPTH = 3;
const MAX_TABLE_COLUMNS = 8;
/** Elements of one list the page shows; a long map's outputs are in outputs.json and the journal, not all on the page. */
export const MAX_LIST_ITEMS = 100;

// Below a list cut to MAX_LIST_ITEMS: how many it left out, and where they are.
function rest(list: readonly unknown[]): string {
  const hidden = list.length - MAX_LIST_ITEMS;
  return hidden <= 0
    ? ""
    : `<p class="muted">${formatCount(hidden)} more not shown; outputs.json and journal.jsonl have every one.</p>`;
}

/** A value as JSON, pretty-printed and escaped. */
export function renderJson(value: unknown): string {
  return `<pre class="json">${htmlText(JSON.stringify(value, null, 2) ?? "null")}</pre>`;
}

function media(value: { artifact: string; mime: string }, context: ValueContext): string {
  if (!isMediaRef(value)) return renderJson(value);
  const tile = context.media.tileOf(value, context.owner, context.seen);
  // Not on the page yet (e.g. what an approval showed): shown here, once.
  return tile === undefined
    ? renderTile(context.media.add(value, context.owner ?? value.artifact, value.title ?? "media"))
    : renderChip(tile);
}

function text(value: string, context: ValueContext): string {
  const stored = context.media.alias(value);
  if (stored !== undefined) return media(stored, context);
  if (isProse(value)) return renderMarkdown(value);
  return `<span class="value${value.length <= 24 ? " short" : ""}">${htmlText(value)}</span>`;
}

/** Keys shared by every element, when a list of objects reads best as a table. */
function tableColumns(list: readonly unknown[]): string[] | undefined {
  if (list.length === 0 || !list.every((element) => isPlainObject(element) && !isMediaRef(element))) return undefined;
  const columns = [...new Set(list.flatMap((element) => Object.keys(element as object)))];
  return columns.length > 0 && columns.length <= MAX_TABLE_COLUMNS ? columns : undefined;
}

function render(value: unknown, context: ValueContext, depth: number): string {
  if (value === undefined || value === null) return `<span class="muted">—</span>`;
  if (typeof value === "string") return text(value, context);
  if (typeof value !== "object") return `<span class="value">${htmlText(String(value))}</span>`;
  if (isMediaRef(value)) return media(value, context);
  if (depth >= MAX_DEPTH) {
    const found = findMedia(value);
    return `${found.map((ref) => media(ref, context)).join(" ")}${renderJson(value)}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return `<span class="muted">(empty list)</span>`;
    const shown = value.slice(0, MAX_LIST_ITEMS);
    const columns = tableColumns(shown);
    if (columns !== undefined) {
      const head = `<tr><th scope="col" class="num">#</th>${columns.map((column) => `<th scope="col">${htmlText(column)}</th>`).join("")}</tr>`;
      const rows = shown.map((element, index) => {
        const record = element as Record<string, unknown>;
        return `<tr><td class="num muted">${index + 1}</td>${columns.map((column) => `<td>${render(record[column], context, depth + 1)}</td>`).join("")}</tr>`;
      });
      return `<table class="grid values-table"><thead>${head}</thead><tbody>${rows.join("")}</tbody></table>${rest(value)}`;
    }
    if (
      shown.every(
        (element) => typeof element === "string" && element.length <= 24 && context.media.alias(element) === undefined,
      ) ||
      shown.every((element) => typeof element === "number")
    ) {
      return `<ul class="tags">${shown.map((element) => `<li>${htmlText(String(element))}</li>`).join("")}</ul>${rest(value)}`;
    }
    return `<ol class="values-list">${shown.map((element) => `<li>${render(element, context, depth + 1)}</li>`).join("")}</ol>${rest(value)}`;
  }
  const record = value as Record<string, unknown>;
  // A chat reply ({ text, model, toolCalls }): its text is what a person wants to read.
  if (typeof record.text === "string") {
    const calls =
      Array.isArray(record.toolCalls) && record.toolCalls.length > 0
        ? `<details><summary>Tool calls (${record.toolCalls.length})</summary>${renderJson(record.toolCalls)}</details>`
        : "";
    const rest = Object.fromEntries(
      Object.entries(record).filter(([name]) => !["text", "model", "toolCalls"].includes(name)),
    );
    return `${renderMarkdown(record.text)}${Object.keys(rest).length > 0 ? render(rest, context, depth + 1) : ""}${calls}`;
  }
  const names = Object.keys(record);
  if (names.length === 0) return `<span class="muted">(empty)</span>`;
  return `<dl class="values">${names.map((name) => `<dt>${htmlText(name)}</dt><dd>${render(record[name], context, depth + 1)}</dd>`).join("")}</dl>`;
}

/**
 * A step's output or a run output, as a person reads it: Markdown text rendered (safely), lists and
 * tables for structured output, media as links to their one tile on the page.
 */
export function renderOutputValue(value: unknown, context: ValueContext): string {
  if (value === undefined || value === null) return `<p class="muted">No output.</p>`;
  return render(value, { ...context, seen: context.seen ?? new Map() }, 0);
}
