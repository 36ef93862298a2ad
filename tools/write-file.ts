import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolInputError } from "../src/errors.js";
import { positiveInteger, requireWorkspace } from "./support/check-option.js";
import { errorCode } from "./support/error-code.js";
import { formatBytes } from "./support/format-bytes.js";
import { resolveWorkspacePath } from "./support/workspace-path.js";

/** Options of the write_file tool. */
export interface WriteFileToolOptions {
  /** Folder the tool may write in (created when missing); paths outside it are refused. */
  workspace: string;
  /** Largest content one call may write. Default 10 MiB. */
  maxBytes?: number;
}

/** Input of the write_file tool. */
export const writeFileSchema = z.object({
  path: z.string().min(1).describe('Path of the file, relative to the workspace, e.g. "reports/summary.md".'),
  content: z.string().describe("The text to write (UTF-8)."),
  mode: z
    .enum(["overwrite", "append", "create"])
    .optional()
    .describe('"overwrite" (default) replaces the file, "append" adds to its end, "create" fails if it exists.'),
});

const FLAGS = { overwrite: "w", append: "a", create: "wx" } as const;

function done(mode: keyof typeof FLAGS, bytes: number, relative: string): string {
  if (mode === "create") return `Created "${relative}" (${bytes} bytes).`;
  return `${mode === "append" ? "Appended" : "Wrote"} ${bytes} bytes to "${relative}".`;
}

/** Creates the `write_file` tool: writes a text file inside the workspace, creating parent folders. */
export function createWriteFileTool(options: WriteFileToolOptions) {
  const workspace = requireWorkspace(options.workspace, "write_file");
  const maxBytes = positiveInteger("maxBytes", options.maxBytes, 10 * 1024 * 1024);
  return tool(
    async ({ path: requested, content, mode = "overwrite" }) => {
      const bytes = Buffer.byteLength(content);
      if (bytes > maxBytes) {
        throw new ToolInputError(
          `The content is ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} write limit. ` +
            'Write it in parts with mode "append".',
          { code: "content_too_large" },
        );
      }
      // A workspace that is a file is reported by resolveWorkspacePath, with a clearer message.
      await mkdir(workspace, { recursive: true }).catch((error: unknown) => {
        if (errorCode(error) !== "EEXIST") throw error;
      });
      const target = await resolveWorkspacePath(workspace, requested);
      if (target.exists && (await stat(target.absolute)).isDirectory()) {
        throw new ToolInputError(
          `"${target.relative}" is a folder; give a file path inside it, e.g. "${target.relative}/notes.txt".`,
          { code: "not_a_file" },
        );
      }
      if (mode === "create" && target.exists) {
        throw new ToolInputError(
          `"${target.relative}" already exists. Use mode "overwrite" to replace it or "append" to add to it.`,
          { code: "file_exists" },
        );
      }
      await mkdir(path.dirname(target.absolute), { recursive: true });
      try {
        await writeFile(target.absolute, content, { encoding: "utf8", flag: FLAGS[mode] });
      } catch (error) {
        if (errorCode(error) === "EEXIST") {
          throw new ToolInputError(`"${target.relative}" already exists. Use mode "overwrite" to replace it.`, {
            code: "file_exists",
            cause: error,
          });
        }
        throw error;
      }
      return done(mode, bytes, target.relative);
    },
    {
      name: "write_file",
      description:
        "Writes a text file in the workspace, creating missing parent folders. Paths are relative to the " +
        'workspace; paths outside it are refused. mode "overwrite" (default) replaces the file, "append" adds ' +
        `to its end, "create" refuses to replace an existing file. At most ${formatBytes(maxBytes)} per call.`,
      schema: writeFileSchema,
    },
  );
}
