import { existsSync } from "node:fs";
import type { ValuePath } from "../expression/index.js";
import { hasExpression } from "../expression/index.js";
import { audioFormatFromMime, audioFormatFromName, convertAudioMessage, mediaSource, type MediaKind } from "../media/media-source.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import { walkSteps } from "./walk-steps.js";
import type { RawIssue } from "./zod-issues.js";

/** Checks media written literally in the file: files exist, links are http(s), audio is mp3 or wav. */
export function checkMedia(definition: WorkflowDefinition, baseDir: string): RawIssue[] {
  const issues: RawIssue[] = [];
  const check = (value: unknown, kind: MediaKind, path: ValuePath) => {
    if (typeof value !== "string" || hasExpression(value)) return;
    const problem = literalProblem(value, kind, baseDir);
    if (problem !== undefined) issues.push({ path, message: problem });
  };
  walkSteps(definition.steps, ({ step, path }) => {
    if (!("uses" in step)) return;
    if (step.uses === "image" && step.with.source !== undefined) check(step.with.source, "image", [...path, "with", "source"]);
    if (step.uses !== "chat") return;
    for (const kind of ["image", "audio", "video"] as const) {
      const field = kind === "image" ? "images" : kind;
      const list = step.with[field];
      if (Array.isArray(list)) list.forEach((item, index) => check(item, kind, [...path, "with", field, index]));
    }
  });
  return issues;
}

function literalProblem(value: string, kind: MediaKind, baseDir: string): string | undefined {
  const source = mediaSource(value, { baseDir });
  if (typeof source === "string") return `Cannot use ${JSON.stringify(value.slice(0, 80))}: ${source}.`;
  if (source.type === "file" && !existsSync(source.path)) {
    return `There is no file ${source.path}. Paths are relative to the workflow file's folder.`;
  }
  if (kind !== "audio") return undefined;
  if (source.type === "data") {
    const mime = /^data:([^;,]+)/i.exec(source.uri)?.[1] ?? "";
    return audioFormatFromMime(mime) === undefined ? convertAudioMessage(`This data URI (${mime})`) : undefined;
  }
  const format = audioFormatFromName(source.type === "url" ? new URL(source.url).pathname : source.path);
  return format === "other" ? convertAudioMessage(value, value) : undefined;
}
