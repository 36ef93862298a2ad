import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { request } from "undici";
import { ParameterError, UpstreamError } from "../../errors.js";
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

/** Where relative paths and artifacts are read from. */
export interface MediaFolders {
  readonly baseDir: string;
  readonly runDir: string;
  readonly signal?: AbortSignal;
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
      ? await readMediaFile(source.path)
      : source.type === "url"
        ? await download(source.url, folders.signal)
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

async function readMediaFile(file: string): Promise<{ bytes: Buffer; mime?: string; name: string }> {
  const facts = await stat(file).catch(() => undefined);
  if (facts === undefined)
    throw new ParameterError(`There is no file ${file}. Paths are relative to the workflow file's folder.`);
  tooLarge(facts.size, file);
  return { bytes: await readFile(file), name: file };
}

function fromDataUri(uri: string): { bytes: Buffer; mime?: string; name: string } {
  const decoded = parseDataUri(uri);
  if (decoded === undefined) throw new ParameterError("A data URI must be base64: data:<mime>;base64,<data>.");
  tooLarge(decoded.bytes.length, "The data URI");
  return { bytes: decoded.bytes, mime: decoded.mime, name: `a data URI of type ${decoded.mime}` };
}

async function download(
  url: string,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Buffer; mime?: string; name: string }> {
  const response = await request(url, { method: "GET", ...(signal === undefined ? {} : { signal }) });
  if (response.statusCode >= 400) {
    await response.body.dump();
    throw new UpstreamError(`Downloading ${url} failed with HTTP ${response.statusCode}.`, {
      status: response.statusCode,
      retryable: response.statusCode >= 500,
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    tooLarge(size, url);
    chunks.push(chunk as Buffer);
  }
  const type = response.headers["content-type"];
  return {
    bytes: Buffer.concat(chunks),
    ...(typeof type === "string" ? { mime: type } : {}),
    name: new URL(url).pathname || url,
  };
}

function tooLarge(bytes: number, what: string): void {
  if (bytes > MAX_MEDIA_BYTES) {
    throw new ParameterError(
      `${what} is over ${MAX_MEDIA_BYTES / 1024 / 1024} MiB, more than one request carries. Split it or send a shorter clip.`,
    );
  }
}
