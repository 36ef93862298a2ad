import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { isArtifactRef, mediaSource } from "./media-source.js";

/** How a media value enters a step key: the sha256 of its bytes, or a URL (not fetched), or what could not be read. */
export type MediaDigest = { readonly sha256: string } | { readonly url: string } | { readonly unreadable: string };

/** Where media paths are read from, and a cache of file digests (one read per file per run). */
export interface MediaDigestFolders {
  readonly baseDir: string;
  readonly runDir?: string;
  readonly cache?: Map<string, Promise<MediaDigest>>;
}

const ARTIFACT_SHA = /^artifacts\/([0-9a-f]{64})\.[a-z0-9]+$/;

/**
 * The content digest of a media value (a path, data URI, URL or artifact): the same bytes give the same
 * digest whichever way they are named. An artifact's name already is the sha256 of its bytes; a URL is
 * keyed by the URL, since reading it would cost a download.
 */
export async function mediaDigest(value: unknown, folders: MediaDigestFolders): Promise<MediaDigest> {
  const artifact = isArtifactRef(value) ? value.artifact : typeof value === "string" ? value : undefined;
  const named = artifact === undefined ? undefined : ARTIFACT_SHA.exec(artifact);
  if (named?.[1] !== undefined) return { sha256: named[1] };
  const source = mediaSource(value, folders);
  if (typeof source === "string") return { unreadable: source };
  if (source.type === "url") return { url: source.url };
  if (source.type === "data") {
    const base64 = source.uri.slice(source.uri.indexOf(",") + 1);
    return { sha256: sha256(Buffer.from(base64, "base64")) };
  }
  const file = path.resolve(source.path);
  const cached = folders.cache?.get(file);
  if (cached !== undefined) return cached;
  const digest = readFile(file).then(
    (bytes): MediaDigest => ({ sha256: sha256(bytes) }),
    (): MediaDigest => ({ unreadable: file }),
  );
  folders.cache?.set(file, digest);
  return digest;
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
