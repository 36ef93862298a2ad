import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { ArtifactRef } from "../media/media-source.js";

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
};

/** A run's `artifacts/` folder: files named by the sha256 of their bytes, so writing one twice is free. */
export class ArtifactStore {
  readonly #runDir: string;
  readonly #folder: string;

  constructor(runDir: string) {
    this.#runDir = runDir;
    this.#folder = path.join(runDir, "artifacts");
  }

  /** Stores bytes and returns the reference outputs carry; the file is on disk (fsynced) when this resolves. */
  async write(bytes: Uint8Array, mime: string): Promise<ArtifactRef> {
    const sha = createHash("sha256").update(bytes).digest("hex");
    const relative = `artifacts/${sha}.${extensionOf(mime)}`;
    await this.#store(relative, sha, bytes);
    return { artifact: relative, mime, bytes: bytes.byteLength };
  }

  /**
   * Copies an artifact (`artifacts/<sha256>.<ext>`) of another run directory under the same name, once its
   * bytes are checked against the name; false when the file is missing or its bytes do not match.
   */
  async copyFrom(runDir: string, relative: string): Promise<boolean> {
    const sha = /^artifacts\/([0-9a-f]{64})\.[a-z0-9]+$/.exec(relative)?.[1];
    if (sha === undefined) return false;
    const bytes = await readFile(path.join(runDir, relative)).catch(() => undefined);
    if (bytes === undefined || createHash("sha256").update(bytes).digest("hex") !== sha) return false;
    await this.#store(relative, sha, bytes);
    return true;
  }

  async #store(relative: string, sha: string, bytes: Uint8Array): Promise<void> {
    const target = path.join(this.#runDir, relative);
    const existing = await stat(target).catch(() => undefined);
    if (existing?.size === bytes.byteLength) return;
    await mkdir(this.#folder, { recursive: true });
    // Written under a temporary name and renamed, so a kill never leaves a half file under the final name.
    const temporary = path.join(this.#folder, `.${sha}.${randomUUID()}.tmp`);
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target).catch(async (error: unknown) => {
      await rm(temporary, { force: true });
      throw error;
    });
  }
}

function extensionOf(mime: string): string {
  const known = EXTENSIONS[mime.split(";")[0]!.trim().toLowerCase()];
  if (known !== undefined) return known;
  const subtype = mime
    .split("/")[1]
    ?.replace(/[^a-z0-9]/gi, "")
    .toLowerCase();
  return subtype === undefined || subtype === "" ? "bin" : subtype.slice(0, 8);
}
