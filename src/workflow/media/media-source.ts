import path from "node:path";

/** The media a chat step can send. */
export type MediaKind = "image" | "audio" | "video";

/** Where a media value points, before anything is read. */
export type MediaSource =
  | { readonly type: "data"; readonly uri: string }
  | { readonly type: "url"; readonly url: string }
  | { readonly type: "file"; readonly path: string };

/** An artifact an earlier step wrote: `{ artifact: "artifacts/<sha256>.png", mime, bytes }`. */
export interface ArtifactRef {
  readonly artifact: string;
  readonly mime: string;
  readonly bytes: number;
}

const ARTIFACT_PATH = /^artifacts\/[0-9a-f]{64}\.[a-z0-9]+$/;

/** Whether a value is an artifact reference (what image and music steps output). */
export function isArtifactRef(value: unknown): value is ArtifactRef {
  return typeof value === "object" && value !== null && typeof (value as { artifact?: unknown }).artifact === "string";
}

/**
 * Classifies a media value: a data URI, an http(s) URL, an artifact (object or its `artifacts/...` path,
 * read from the run directory) or a file path (relative to the workflow file's folder).
 */
export function mediaSource(
  value: unknown,
  folders: { readonly baseDir: string; readonly runDir?: string },
): MediaSource | string {
  if (isArtifactRef(value) || (typeof value === "string" && ARTIFACT_PATH.test(value))) {
    const artifact = isArtifactRef(value) ? value.artifact : (value as string);
    if (folders.runDir === undefined) return "artifacts exist only while the workflow runs";
    return { type: "file", path: path.join(folders.runDir, artifact) };
  }
  if (typeof value !== "string" || value.trim() === "")
    return `expected a path, URL, data URI or artifact, got ${JSON.stringify(value)}`;
  if (/^data:/i.test(value))
    return /^data:[^;,]+(?:;[^;,]+)*;base64,/i.test(value)
      ? { type: "data", uri: value }
      : "a data URI must be base64 (data:<mime>;base64,...)";
  if (/^https?:\/\//i.test(value)) return { type: "url", url: value };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return `"${value.split(":")[0]}" links are not supported; use a file path, an http(s) URL or a data URI`;
  return { type: "file", path: path.resolve(folders.baseDir, value) };
}

const AUDIO_EXTENSIONS: Readonly<Record<string, "mp3" | "wav">> = { ".mp3": "mp3", ".wav": "wav", ".wave": "wav" };
const AUDIO_MIMES: Readonly<Record<string, "mp3" | "wav">> = {
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/wav": "wav",
  "audio/wave": "wav",
  "audio/x-wav": "wav",
  "audio/vnd.wave": "wav",
};

/** mp3 or wav from a file name or URL path; undefined when it has no extension; "other" for any other. */
export function audioFormatFromName(name: string): "mp3" | "wav" | "other" | undefined {
  const extension = path.extname(name.split(/[?#]/)[0] ?? "").toLowerCase();
  if (extension === "") return undefined;
  return AUDIO_EXTENSIONS[extension] ?? "other";
}

/** mp3 or wav from a MIME type; undefined for anything else. */
export function audioFormatFromMime(mime: string): "mp3" | "wav" | undefined {
  return AUDIO_MIMES[mime.split(";")[0]!.trim().toLowerCase()];
}

/** The message for audio in another format: the gateway takes mp3 and wav only. `file` names the input in the example command. */
export function convertAudioMessage(what: string, file?: string): string {
  const input = file === undefined ? "input.ogg" : path.basename(file.split(/[?#]/)[0] ?? file);
  const output = `${path.basename(input, path.extname(input)) || "audio"}.mp3`;
  return `${what} is not mp3 or wav, the only audio formats the gateway takes. Convert it first, e.g. \`ffmpeg -i ${input} ${output}\`.`;
}
