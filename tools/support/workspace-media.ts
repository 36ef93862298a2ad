import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolInputError } from "../../src/errors.js";
import { formatBytes } from "./format-bytes.js";
import { resolveWorkspacePath, type WorkspacePath } from "./workspace-path.js";

/** A media file read from the workspace. */
export interface WorkspaceMedia {
  readonly bytes: Buffer;
  /** The path relative to the workspace, as the model should name it. */
  readonly relative: string;
}

/** Reads a whole file from the workspace, refusing paths outside it, folders and files over `maxBytes`. */
export async function readWorkspaceMedia(
  workspace: string,
  requested: string,
  maxBytes: number,
): Promise<WorkspaceMedia> {
  const target = await resolveWorkspacePath(workspace, requested);
  const name = `"${target.relative}"`;
  if (!target.exists) {
    throw new ToolInputError(`There is no file ${name} in the workspace. Call list_files to see what exists.`, {
      code: "file_not_found",
    });
  }
  const info = await stat(target.absolute);
  if (!info.isFile())
    throw new ToolInputError(`${name} is not a file; give the path of a file.`, { code: "not_a_file" });
  if (info.size > maxBytes) {
    throw new ToolInputError(
      `${name} is ${formatBytes(info.size)}, over the ${formatBytes(maxBytes)} the gateway takes in one request. ` +
        "Use a smaller file (shrink the image, or cut the audio into shorter parts).",
      { code: "file_too_large" },
    );
  }
  return { bytes: await readFile(target.absolute), relative: target.relative };
}

/** Turns the start of a prompt into a file-name stem: "A red lantern at night" -> "red-lantern-at-night". */
export function slugFromText(text: string, fallback: string): string {
  const words = text
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, " ")
    .split(/[\s-]+/)
    .filter((word) => word !== "" && !["a", "an", "the", "of"].includes(word));
  const slug = words.slice(0, 5).join("-").slice(0, 40).replace(/-+$/, "");
  return slug === "" ? fallback : slug;
}

/**
 * Picks where a new media file goes: the path the model asked for (its extension must be
 * `extension` or absent), else `folder/stem.extension`. An existing file is never replaced: a
 * numbered name ("poster-2.png") is taken instead, and the result says which path was used.
 */
export async function chooseOutputPath(
  workspace: string,
  requested: string | undefined,
  fallback: { readonly folder: string; readonly stem: string },
  extension: string,
): Promise<WorkspacePath> {
  await mkdir(workspace, { recursive: true });
  let wanted = requested?.trim() || `${fallback.folder}/${fallback.stem}.${extension}`;
  const given = path.extname(wanted).toLowerCase();
  if (given === "") wanted = `${wanted}.${extension}`;
  else if (given !== `.${extension}`) {
    throw new ToolInputError(
      `The output path "${wanted}" ends in ${given}, but the file will be ${extension.toUpperCase()}. ` +
        `Give a path ending in .${extension}, or leave the extension off.`,
      { code: "wrong_extension" },
    );
  }
  const first = await resolveWorkspacePath(workspace, wanted);
  if (!first.exists) return first;
  const stem = wanted.slice(0, -path.extname(wanted).length);
  for (let counter = 2; counter < 1000; counter++) {
    const candidate = await resolveWorkspacePath(workspace, `${stem}-${counter}.${extension}`);
    if (!candidate.exists) return candidate;
  }
  throw new ToolInputError(`Too many files named like "${wanted}". Give another output path.`, { code: "file_exists" });
}

/** Writes bytes to a workspace path through a temporary file, so a cut write never looks complete. */
export async function writeWorkspaceFile(target: WorkspacePath, bytes: Uint8Array): Promise<void> {
  await mkdir(path.dirname(target.absolute), { recursive: true });
  const partPath = `${target.absolute}.${randomUUID()}.part`;
  try {
    await writeFile(partPath, bytes, { flag: "wx" });
    await rename(partPath, target.absolute);
  } catch (error) {
    await rm(partPath, { force: true });
    throw error;
  }
}
