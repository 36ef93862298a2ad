import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { diffMediaKey, renderRunDiff } from "../report/render-run-diff.js";
import type { RunDiff } from "./diff-runs.js";

/**
 * Writes the comparison page to `file`, with the images and clips that differ inlined as data URIs
 * read from each run's artifacts/, so the page opens anywhere on its own.
 */
export async function writeRunDiffPage(diff: RunDiff, file: string): Promise<void> {
  const media = new Map<string, string>();
  const changes = [...diff.inputs, ...diff.defaults, ...diff.steps.flatMap((step) => [...step.input, ...step.output])];
  for (const change of changes) {
    if (change.type !== "media") continue;
    for (const [runDir, ref] of [
      [diff.a.dir, change.a],
      [diff.b.dir, change.b],
    ] as const) {
      if (ref === undefined || media.has(diffMediaKey(runDir, ref.artifact))) continue;
      // A run directory whose artifact is gone still gets its page; the image is named instead.
      const bytes = await readFile(path.join(runDir, ref.artifact)).catch(() => undefined);
      if (bytes !== undefined)
        media.set(diffMediaKey(runDir, ref.artifact), `data:${ref.mime};base64,${bytes.toString("base64")}`);
    }
  }
  await writeFile(file, renderRunDiff(diff, media));
}
