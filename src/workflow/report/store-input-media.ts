import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ArtifactStore } from "../run/artifact-store.js";
import type { RunSummary } from "../run/run-summary.js";
import type { MediaRef } from "./media-index.js";

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".wav": "audio/wav",
  ".mp3": "audio/mpeg",
};
// Larger inputs are named, not copied: the report is not the place for a video-sized file.
const MAX_COPIED_BYTES = 20 * 1024 * 1024;
const DATA_URI = /^data:((?:image|audio)\/[a-z0-9.+-]+)(?:;[^;,]+)*;base64,([A-Za-z0-9+/=\s]+)$/i;

async function bytesOf(value: string, baseDir: string): Promise<{ bytes: Buffer; mime: string } | undefined> {
  const data = DATA_URI.exec(value);
  if (data !== null) return { bytes: Buffer.from(data[2]!, "base64"), mime: data[1]!.toLowerCase() };
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return undefined;
  const mime = MIME_BY_EXTENSION[path.extname(value).toLowerCase()];
  if (mime === undefined) return undefined;
  const file = path.resolve(baseDir, value);
  try {
    if ((await stat(file)).size > MAX_COPIED_BYTES) return undefined;
    return { bytes: await readFile(file), mime };
  } catch {
    // Moved or never there: the input is shown as the text it was.
    return undefined;
  }
}

function strings(value: unknown, found: Set<string>, depth = 0): Set<string> {
  if (typeof value === "string") found.add(value);
  else if (Array.isArray(value) && depth < 2) for (const element of value) strings(element, found, depth + 1);
  return found;
}

/**
 * Copies the run's media inputs (an image or audio path relative to the workflow file, or a data
 * URI) into artifacts/, so report.html can show the photo and play the audio from the run
 * directory alone. Returns the stored file of each input value that is one.
 */
export async function storeInputMedia(summary: RunSummary): Promise<Map<string, MediaRef>> {
  const stored = new Map<string, MediaRef>();
  const values = new Set<string>();
  for (const value of Object.values(summary.inputs)) strings(value, values);
  const store = new ArtifactStore(summary.runDir);
  for (const value of values) {
    const media = await bytesOf(value, summary.workflow.baseDir);
    if (media === undefined) continue;
    const ref = await store.write(media.bytes, media.mime);
    stored.set(value, { ...ref, title: value.startsWith("data:") ? "data URI" : path.basename(value) });
  }
  return stored;
}
