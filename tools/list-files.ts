import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolInputError } from "../src/errors.js";
import { positiveInteger, requireWorkspace } from "./support/check-option.js";
import { formatBytes } from "./support/format-bytes.js";
import { resolveWorkspacePath } from "./support/workspace-path.js";

/** Options of the list_files tool. */
export interface ListFilesToolOptions {
  /** Folder the tool may list; paths outside it are refused. */
  workspace: string;
  /** Most entries one call returns. Default 500. */
  maxEntries?: number;
}

/** Input of the list_files tool. */
export const listFilesSchema = z.object({
  path: z
    .string()
    .optional()
    .describe('Folder to list, relative to the workspace. Omit (or ".") for the workspace itself.'),
  recursive: z.boolean().optional().describe("List sub-folders too. Default false."),
});

interface Listing {
  readonly lines: string[];
  truncated: boolean;
}

async function walk(folder: string, relative: string, recursive: boolean, listing: Listing, maxEntries: number) {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (listing.lines.length >= maxEntries) {
      listing.truncated = true;
      return;
    }
    const name = relative === "." ? entry.name : `${relative}/${entry.name}`;
    const absolute = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      listing.lines.push(`${name}/`);
      if (recursive) await walk(absolute, name, recursive, listing, maxEntries);
    } else if (entry.isSymbolicLink()) {
      // Links are shown, not followed: one pointing outside would leak what is there.
      listing.lines.push(`${name}  (symbolic link)`);
    } else if (entry.isFile()) {
      const info = await stat(absolute).catch(() => undefined);
      listing.lines.push(info === undefined ? name : `${name}  (${formatBytes(info.size)})`);
    } else {
      listing.lines.push(`${name}  (special file)`);
    }
  }
}

/** Creates the `list_files` tool: lists a folder of the workspace, optionally recursively. */
export function createListFilesTool(options: ListFilesToolOptions) {
  const workspace = requireWorkspace(options.workspace, "list_files");
  const maxEntries = positiveInteger("maxEntries", options.maxEntries, 500);
  return tool(
    async ({ path: requested = ".", recursive = false }) => {
      const target = await resolveWorkspacePath(workspace, requested);
      if (!target.exists) {
        throw new ToolInputError(
          `There is no folder "${target.relative}" in the workspace. List "." to see what exists.`,
          { code: "file_not_found" },
        );
      }
      if (!(await stat(target.absolute)).isDirectory()) {
        throw new ToolInputError(`"${target.relative}" is a file, not a folder; read it with read_file.`, {
          code: "not_a_folder",
        });
      }
      const listing: Listing = { lines: [], truncated: false };
      await walk(target.absolute, target.relative, recursive, listing, maxEntries);
      if (listing.lines.length === 0) return `"${target.relative}" is an empty folder.`;
      if (listing.truncated) {
        listing.lines.push(`[Listed the first ${maxEntries} entries only; list a sub-folder to see the rest.]`);
      }
      return listing.lines.join("\n");
    },
    {
      name: "list_files",
      description:
        "Lists the files and folders in a folder of the workspace: one per line, paths relative to the " +
        'workspace (usable with read_file), folders ending in "/", files with their size. ' +
        `Set recursive to include sub-folders. At most ${maxEntries} entries per call.`,
      schema: listFilesSchema,
    },
  );
}
