import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./command.js";

/**
 * Refuses (exit 2) a folder flag (`--out DIR`, `--workspace DIR`) whose path is a file or runs
 * through one, before anything runs or is paid for; a missing folder is fine (it is made).
 */
export async function checkFolderFlag(flag: string, dir: string): Promise<void> {
  const blocker = await fileOnPath(dir);
  if (blocker === dir) throw new UsageError(`${flag} ${dir} is a file. Name a folder (it is made if missing).`);
  if (blocker !== undefined)
    throw new UsageError(`${flag} ${dir} cannot be made: ${blocker} is a file. Name a folder elsewhere.`);
}

/** Refuses (exit 2) a flag naming a folder that must already exist (`--workflows DIR`). */
export async function checkExistingFolderFlag(flag: string, dir: string): Promise<void> {
  const facts = await stat(dir).catch(() => undefined);
  if (facts === undefined) throw new UsageError(`${flag} ${dir}: there is no such folder.`);
  if (!facts.isDirectory()) throw new UsageError(`${flag} ${dir} is a file. Name a folder.`);
}

/**
 * Makes the folder a file flag writes into (`--out FILE`, `--html FILE`), before anything is paid
 * for: refuses (exit 2) when the file is a folder or its folder cannot be made.
 */
export async function prepareFileFlag(flag: string, file: string): Promise<void> {
  if ((await stat(file).catch(() => undefined))?.isDirectory() === true)
    throw new UsageError(`${flag} ${file} is a folder. Name a file.`);
  const folder = path.dirname(file);
  await checkFolderFlag(flag, folder).catch(() => {
    throw new UsageError(`${flag} ${file} cannot be written: ${folder} is not a folder.`);
  });
  await mkdir(folder, { recursive: true });
}

// The path itself or the nearest existing ancestor, when that is a file.
async function fileOnPath(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    const facts = await stat(current).catch(() => undefined);
    if (facts !== undefined) return facts.isDirectory() ? undefined : current;
    if (path.dirname(current) === current) return undefined;
  }
}
