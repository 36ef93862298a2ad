import { isDeepStrictEqual } from "node:util";
import { structuredPatch } from "diff";
import { isMediaRef, type MediaRef } from "../report/media-index.js";

/** A run of changed lines with its context, as in a unified diff (`@@ -3,2 +3,4 @@`). */
export interface DiffHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** Each line starts with " " (both sides), "-" (only before) or "+" (only after). */
  readonly lines: readonly string[];
}

/** One difference between two values, at a path inside them (`text`, `with.prompt`, `[2].title`). */
export type ValueChange =
  /** Text on both sides: a line diff. */
  | { readonly path: string; readonly type: "text"; readonly a: string; readonly b: string; readonly hunks: DiffHunk[] }
  /** An image or audio file on either side whose bytes differ (artifacts are named by their content). */
  | { readonly path: string; readonly type: "media"; readonly a?: MediaRef; readonly b?: MediaRef }
  /** Anything else (a number, a list of another length, a value on one side only); the JSON's line diff. */
  | {
      readonly path: string;
      readonly type: "value";
      readonly a?: unknown;
      readonly b?: unknown;
      readonly hunks: DiffHunk[];
    };

/** Lines of context around each change. */
const CONTEXT_LINES = 3;

/** The differences between two JSON values, at the deepest path each shows up, in the values' order. */
export function diffValues(a: unknown, b: unknown, path = ""): ValueChange[] {
  if (isDeepStrictEqual(a, b)) return [];
  if (typeof a === "string" && typeof b === "string") return [{ path, type: "text", a, b, hunks: lineDiff(a, b) }];
  if (isMediaRef(a) || isMediaRef(b)) {
    if (isMediaRef(a) && isMediaRef(b) && a.artifact === b.artifact) return diffFields({ ...a }, { ...b }, path);
    const mediaOrNothing = (value: unknown): value is MediaRef | undefined => value === undefined || isMediaRef(value);
    if (mediaOrNothing(a) && mediaOrNothing(b))
      return [{ path, type: "media", ...(a === undefined ? {} : { a }), ...(b === undefined ? {} : { b }) }];
    return [valueChange(a, b, path)];
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((item, index) => diffValues(item, b[index], `${path}[${index}]`));
  if (isRecord(a) && isRecord(b)) return diffFields(a, b, path);
  return [valueChange(a, b, path)];
}

/** A line diff of two texts as unified hunks. */
export function lineDiff(a: string, b: string): DiffHunk[] {
  // A final newline on one side only is not worth a "\ No newline at end of file" line.
  const patch = structuredPatch("a", "b", withNewline(a), withNewline(b), undefined, undefined, {
    context: CONTEXT_LINES,
  });
  return patch.hunks.map((hunk) => ({
    oldStart: hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart,
    newLines: hunk.newLines,
    lines: hunk.lines.filter((line) => !line.startsWith("\\")),
  }));
}

/** A hunk's header line, `@@ -3,2 +3,4 @@`. */
export function hunkHeader(hunk: DiffHunk): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
}

function diffFields(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>, path: string) {
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return names.flatMap((name) => diffValues(a[name], b[name], path === "" ? name : `${path}.${name}`));
}

function valueChange(a: unknown, b: unknown, path: string): ValueChange {
  return {
    path,
    type: "value",
    ...(a === undefined ? {} : { a }),
    ...(b === undefined ? {} : { b }),
    hunks: lineDiff(jsonText(a), jsonText(b)),
  };
}

function jsonText(value: unknown): string {
  return value === undefined ? "" : (JSON.stringify(value, null, 2) ?? "");
}

function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
