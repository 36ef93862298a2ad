import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { SNIFF_BYTES, sniffMedia } from "../../media/sniff-media.js";
import type { ValuePath } from "../expression/index.js";
import { hasExpression } from "../expression/index.js";
import {
  audioFormatFromMime,
  audioFormatFromName,
  convertAudioMessage,
  mediaSource,
  type MediaKind,
} from "../media/media-source.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import { mediaFields } from "./media-fields.js";
import { stepPlaces, type StepPlace } from "./walk-steps.js";
import type { RawIssue } from "./zod-issues.js";

// A media value that is exactly one input, e.g. "${{ inputs.photo }}": checked with the input's value.
const INPUT_REFERENCE = /^\s*\$\{\{\s*inputs\.([A-Za-z_][\w-]*)\s*\}\}\s*$/;

/**
 * Checks media before anything is sent: files exist and are what they claim by their first bytes
 * (PNG, JPEG, GIF, WebP images; MP3, WAV audio), data URIs likewise, links are http(s). A value that
 * is exactly `${{ inputs.NAME }}` is checked with `inputs` (at load: each input's default).
 */
export function checkMedia(
  definition: WorkflowDefinition,
  baseDir: string,
  inputs?: Readonly<Record<string, unknown>>,
  places: readonly StepPlace[] = stepPlaces(definition.steps),
): RawIssue[] {
  const values =
    inputs ??
    Object.fromEntries(
      Object.entries(definition.inputs ?? {}).map(([name, spec]) => [name, (spec as { default?: unknown }).default]),
    );
  const issues: RawIssue[] = [];
  const check = (value: unknown, kind: MediaKind, path: ValuePath) => {
    if (typeof value !== "string") return;
    const input = INPUT_REFERENCE.exec(value)?.[1];
    // Literal values are checked at load; with inputs given, only what inputs feed.
    if (inputs !== undefined && input === undefined) return;
    const actual = input === undefined ? value : values[input];
    if (typeof actual !== "string" || actual === "" || hasExpression(actual)) return;
    const problem = mediaProblem(actual, kind, baseDir);
    if (problem !== undefined)
      issues.push({ path, message: input === undefined ? problem : `Input "${input}": ${problem}` });
  };
  for (const { step, path } of places) {
    for (const { kind, field, value } of mediaFields(step)) {
      if (field === "source") check(value, kind, [...path, "with", field]);
      else if (Array.isArray(value)) value.forEach((item, index) => check(item, kind, [...path, "with", field, index]));
    }
  }
  return issues;
}

/** What is wrong with one media value (a path, URL or data URI) for a step that sends `kind`; undefined when nothing. */
export function mediaProblem(value: string, kind: MediaKind, baseDir: string): string | undefined {
  const source = mediaSource(value, { baseDir });
  if (typeof source === "string") return `Cannot use ${JSON.stringify(value.slice(0, 80))}: ${source}.`;
  if (source.type === "file") {
    if (!existsSync(source.path))
      return `There is no file ${source.path}. Paths are relative to the workflow file's folder.`;
    if (!statSync(source.path).isFile()) return `${source.path} is not a file.`;
  }
  if (kind === "audio" && source.type !== "data") {
    const format = audioFormatFromName(source.type === "url" ? new URL(source.url).pathname : source.path);
    if (format === "other") return convertAudioMessage(value, value);
  }
  if (source.type === "url" || kind === "video") return undefined;
  const described =
    source.type === "data" ? `This data URI (${/^data:([^;,]+)/i.exec(source.uri)?.[1] ?? "?"})` : source.path;
  if (source.type === "data") {
    const mime = (/^data:([^;,]+)/i.exec(source.uri)?.[1] ?? "").toLowerCase();
    if (kind === "audio" && audioFormatFromMime(mime) === undefined) return convertAudioMessage(described);
    if (kind === "image" && !mime.startsWith("image/"))
      return `${described} is not an image. Send a PNG, JPEG, GIF or WebP.`;
  }
  const sniffed = sniffMedia(source.type === "data" ? dataUriHead(source.uri) : fileHead(source.path));
  if (sniffed.kind === kind) return undefined;
  const what = sniffed.kind === "unknown" ? sniffed.problem : `${sniffed.format} ${sniffed.kind}`;
  return kind === "image"
    ? `${described} is ${what}, not an image. Send a PNG, JPEG, GIF or WebP (convert SVG to PNG first).`
    : `${described} is ${what}, not audio. ${convertAudioMessage("Anything else")}`;
}

function fileHead(file: string): Uint8Array {
  const handle = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    return buffer.subarray(0, readSync(handle, buffer, 0, SNIFF_BYTES, 0));
  } finally {
    closeSync(handle);
  }
}

function dataUriHead(uri: string): Uint8Array {
  const start = uri.indexOf(",") + 1;
  // Base64 in groups of four characters: 4/3 of the bytes wanted, rounded to a whole group.
  return Buffer.from(uri.slice(start, start + Math.ceil(SNIFF_BYTES / 3) * 4), "base64");
}
