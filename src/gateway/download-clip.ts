import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { SvcFlowError, type GatewayIds } from "../errors.js";
import type { HttpTransport } from "./http-transport.js";
import type { Clip } from "./wire.js";

/** A clip's audio held in memory. */
export interface DownloadedAudio {
  readonly bytes: Buffer;
  readonly contentType?: string;
  readonly ids: GatewayIds;
}

/** A clip's audio written to a file. */
export interface SavedAudio {
  readonly path: string;
  readonly size: number;
  readonly contentType?: string;
  readonly ids: GatewayIds;
}

/** Fetches a finished clip's `audio_url`; the key is sent only to the gateway's own origin. */
export async function downloadClip(
  transport: HttpTransport,
  rootURL: string,
  clip: Clip,
  options: { signal?: AbortSignal; path?: string },
): Promise<DownloadedAudio | SavedAudio> {
  const audioURL = clip.audio_url;
  if (typeof audioURL !== "string" || audioURL === "") {
    throw new SvcFlowError(
      "clip_not_ready",
      `Clip ${clip.id} has no audio_url yet. Wait for it with waitForClips first.`,
    );
  }
  if (audioURL.startsWith("data:")) {
    const comma = audioURL.indexOf(",");
    const bytes = Buffer.from(
      audioURL.slice(comma + 1),
      audioURL.slice(0, comma).endsWith(";base64") ? "base64" : "utf8",
    );
    const contentType = audioURL.slice("data:".length, comma).split(";")[0] || undefined;
    return finish(bytes, contentType, {}, options.path);
  }

  const url = new URL(audioURL, `${rootURL}/`);
  const request = {
    method: "GET" as const,
    url: url.href,
    accept: "audio/*, application/octet-stream",
    // A CDN link must not receive the gateway key.
    authorize: url.origin === new URL(rootURL).origin,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  if (options.path === undefined) {
    const { bytes, ids, contentType } = await transport.bytes(request);
    return { bytes, ids, ...(contentType === undefined ? {} : { contentType }) };
  }

  const opened = await transport.open(request);
  const contentType = typeof opened.headers["content-type"] === "string" ? opened.headers["content-type"] : undefined;
  // Written beside the target and renamed at the end, so a cut download never looks complete.
  const partPath = `${options.path}.${randomUUID()}.part`;
  const file = createWriteStream(partPath);
  let size = 0;
  try {
    for await (const chunk of transport.chunks(opened)) {
      size += chunk.length;
      if (!file.write(chunk)) await once(file, "drain");
    }
    file.end();
    await once(file, "finish");
    await rename(partPath, options.path);
  } catch (error) {
    file.destroy();
    await rm(partPath, { force: true });
    throw error;
  }
  return { path: options.path, size, ids: opened.ids, ...(contentType === undefined ? {} : { contentType }) };
}

async function finish(
  bytes: Buffer,
  contentType: string | undefined,
  ids: GatewayIds,
  path: string | undefined,
): Promise<DownloadedAudio | SavedAudio> {
  const type = contentType === undefined ? {} : { contentType };
  if (path === undefined) return { bytes, ids, ...type };
  const partPath = `${path}.${randomUUID()}.part`;
  await writeFile(partPath, bytes);
  await rename(partPath, path);
  return { path, size: bytes.length, ids, ...type };
}
