import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Dispatcher } from "undici";
import { ParameterError, PrivateAddressError, type SvcFlowError, TimeoutError, UpstreamError } from "../../errors.js";
import { fetchWithLimits } from "../../gateway/fetch-with-limits.js";
import { probeMp3 } from "../../media/mp3.js";
import { probeMp4 } from "../../media/mp4.js";
import { parseDataUri, probeImage } from "../../media/probe.js";
import {
  audioFormatFromMime,
  audioFormatFromName,
  convertAudioMessage,
  mediaSource,
  type MediaKind,
} from "./media-source.js";

/** Largest media item sent in one request; the gateway limits request size. */
export const MAX_MEDIA_BYTES = 20 * 1024 * 1024;

/** How long a media link may take to download, redirects included. */
export const MEDIA_DOWNLOAD_TIMEOUT_MS = 30_000;

/** Where relative paths and artifacts are read from. */
export interface MediaFolders {
  readonly baseDir: string;
  readonly runDir: string;
  readonly signal?: AbortSignal;
  /** For a media link's whole download; default MEDIA_DOWNLOAD_TIMEOUT_MS. */
  readonly downloadTimeoutMs?: number;
  /** What media links are downloaded through; default: the network as it is. */
  readonly dispatcher?: Dispatcher;
  /** The message for a file that is not there; default: it names the workflow file's folder, where paths start. */
  readonly missingFile?: (file: string) => string;
}

/** A content part for the chat message (OpenAI style, which ChatGateway sends as is). */
export type MediaPart =
  | { type: "image_url"; image_url: { url: string } }
  | { type: "input_audio"; input_audio: { data: string; format: "mp3" | "wav" } }
  | { type: "video_url"; video_url: { url: string } };

const VIDEO_MIMES: Readonly<Record<string, string>> = {
  ".mp4": "video/mp4",
  ".m4v": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
};

/**
 * Turns a media value (path, URL, data URI or artifact) into a message part. Images and video links
 * are sent as links; files become data URIs; audio is always sent inline as mp3 or wav, and any
 * other format is refused with the command that converts it.
 */
export async function loadMediaPart(value: unknown, kind: MediaKind, folders: MediaFolders): Promise<MediaPart> {
  const source = mediaSource(value, folders);
  if (typeof source === "string") throw new ParameterError(`Cannot use this ${kind}: ${source}.`);
  if (kind !== "audio" && source.type !== "file") {
    const url = source.type === "url" ? source.url : source.uri;
    return kind === "image" ? { type: "image_url", image_url: { url } } : { type: "video_url", video_url: { url } };
  }
  const { bytes, mime, name } =
    source.type === "file"
      ? await readMediaFile(source.path, folders)
      : source.type === "url"
        ? await download(source.url, folders)
        : fromDataUri(source.uri);
  if (kind === "image") {
    const facts = probeImage(bytes);
    if (facts === undefined) throw new ParameterError(`${name} is not a PNG, JPEG, GIF or WebP image.`);
    return { type: "image_url", image_url: { url: `data:image/${facts.format};base64,${bytes.toString("base64")}` } };
  }
  if (kind === "video") {
    const videoMime =
      VIDEO_MIMES[path.extname(name).toLowerCase()] ?? (probeMp4(bytes) === undefined ? undefined : "video/mp4");
    if (videoMime === undefined) throw new ParameterError(`${name} is not an MP4, MOV or WebM video.`);
    return { type: "video_url", video_url: { url: `data:${videoMime};base64,${bytes.toString("base64")}` } };
  }
  const format = sniffAudio(bytes) ?? (mime === undefined ? undefined : audioFormatFromMime(mime));
  const named = audioFormatFromName(name);
  if (format === undefined || named === "other")
    throw new ParameterError(convertAudioMessage(name, source.type === "data" ? undefined : name));
  return { type: "input_audio", input_audio: { data: bytes.toString("base64"), format } };
}

function sniffAudio(bytes: Buffer): "mp3" | "wav" | undefined {
  if (bytes.length >= 12 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WAVE")
    return "wav";
  return probeMp3(bytes) === undefined ? undefined : "mp3";
}

async function readMediaFile(
  file: string,
  folders: MediaFolders,
): Promise<{ bytes: Buffer; mime?: string; name: string }> {
  const facts = await stat(file).catch(() => undefined);
  if (facts === undefined)
    throw new ParameterError(
      folders.missingFile?.(file) ?? `There is no file ${file}. Paths are relative to the workflow file's folder.`,
    );
  tooLarge(facts.size, file);
  return { bytes: await readFile(file), name: file };
}

function fromDataUri(uri: string): { bytes: Buffer; mime?: string; name: string } {
  const decoded = parseDataUri(uri);
  if (decoded === undefined) throw new ParameterError("A data URI must be base64: data:<mime>;base64,<data>.");
  tooLarge(decoded.bytes.length, "The data URI");
  return { bytes: decoded.bytes, mime: decoded.mime, name: `a data URI of type ${decoded.mime}` };
}

async function download(url: string, folders: MediaFolders): Promise<{ bytes: Buffer; mime?: string; name: string }> {
  const timeoutMs = folders.downloadTimeoutMs ?? MEDIA_DOWNLOAD_TIMEOUT_MS;
  const { bytes, contentType } = await fetchWithLimits(url, {
    maxBytes: MAX_MEDIA_BYTES,
    timeoutMs,
    ...(folders.signal === undefined ? {} : { signal: folders.signal }),
    ...(folders.dispatcher === undefined ? {} : { dispatcher: folders.dispatcher }),
    failure: (failure): SvcFlowError => {
      switch (failure.reason) {
        case "status":
          return new UpstreamError(`Downloading ${url} failed with HTTP ${failure.status}.`, {
            status: failure.status,
            retryable: failure.retryable,
          });
        case "too-large":
          return tooLargeError(url);
        case "content-type":
          // Not asked for (no contentTypes): the bytes say what the media is, whatever its label.
          return new UpstreamError(`${url} answered with ${failure.contentType}.`, { retryable: false });
        case "timeout":
          return new TimeoutError(
            `Downloading ${url} took over ${timeoutMs / 1000}s. Save the file and give its path, or a faster link.`,
            { cause: failure.cause },
          );
        case "network":
          return new UpstreamError(`Downloading ${url} failed: ${(failure.cause as Error).message}. Check the link.`, {
            retryable: true,
            cause: failure.cause,
          });
      }
    },
  }).catch((error: unknown) => {
    // Only a public-only dispatcher refuses an address (a run for a model's client): the fix is the file, not an option.
    if (!(error instanceof PrivateAddressError)) throw error;
    throw new ParameterError(
      `${url}: ${error.reason}; this run downloads links from public addresses only. Give the file's path instead.`,
      { cause: error },
    );
  });
  return { bytes, ...(contentType === undefined ? {} : { mime: contentType }), name: new URL(url).pathname || url };
}

function tooLarge(bytes: number, what: string): void {
  if (bytes > MAX_MEDIA_BYTES) throw tooLargeError(what);
}

function tooLargeError(what: string): ParameterError {
  return new ParameterError(
    `${what} is over ${MAX_MEDIA_BYTES / 1024 / 1024} MiB, more than one request carries. Split it or send a shorter clip.`,
  );
}
