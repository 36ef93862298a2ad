import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ToolInputError } from "../src/errors.js";
import { positiveInteger, requireWorkspace } from "./support/check-option.js";
import { formatBytes } from "./support/format-bytes.js";
import { resolveWorkspacePath, type WorkspacePath } from "./support/workspace-path.js";

/** Options of the read_file tool. */
export interface ReadFileToolOptions {
  /** Folder the tool may read; paths outside it are refused. */
  workspace: string;
  /** Largest file read whole, and the most text one call returns. Default 1 MiB. */
  maxBytes?: number;
}

/** Input of the read_file tool. */
export const readFileSchema = z.object({
  path: z.string().min(1).describe('Path of the file, relative to the workspace, e.g. "data/sales.csv".'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("First line to read, counting from 1. Omit to read the whole file."),
  limit: z.number().int().min(1).optional().describe("How many lines to read from offset. Omit for all the rest."),
});

const SNIFF_BYTES = 8192;

async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(SNIFF_BYTES), 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

// Returns the size of a readable text file, or says why it cannot be read.
async function checkReadable(target: WorkspacePath): Promise<number> {
  const name = `"${target.relative}"`;
  if (!target.exists) {
    throw new ToolInputError(`There is no file ${name} in the workspace. Call list_files to see what exists.`, {
      code: "file_not_found",
    });
  }
  const info = await stat(target.absolute);
  if (info.isDirectory()) {
    throw new ToolInputError(`${name} is a folder; call list_files on it.`, { code: "not_a_file" });
  }
  if (!info.isFile()) throw new ToolInputError(`${name} is not a regular file.`, { code: "not_a_file" });
  if (await looksBinary(target.absolute)) {
    throw new ToolInputError(`${name} is a binary file (it contains NUL bytes); read_file reads text only.`, {
      code: "binary_file",
    });
  }
  return info.size;
}

async function readLines(target: WorkspacePath, first: number, count: number, maxBytes: number) {
  const name = `"${target.relative}"`;
  const lines: string[] = [];
  let bytes = 0;
  let lineNumber = 0;
  let stoppedBy: "limit" | "size" | "end" = "end";
  const reader = createInterface({
    input: createReadStream(target.absolute, { encoding: "utf8" }),
    crlfDelay: Infinity,
  });
  try {
    for await (const line of reader) {
      lineNumber++;
      if (lineNumber < first) continue;
      if (lines.length === count) {
        stoppedBy = "limit";
        break;
      }
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > maxBytes) {
        if (lines.length > 0) {
          stoppedBy = "size";
          break;
        }
        throw new ToolInputError(
          `Line ${lineNumber} of ${name} alone is over the ${formatBytes(maxBytes)} read limit; read_file cannot read it.`,
          { code: "file_too_large" },
        );
      }
      bytes += size;
      lines.push(line);
    }
  } finally {
    reader.close();
  }
  if (lines.length === 0) {
    throw new ToolInputError(
      `${name} has ${lineNumber} line(s); offset ${first} is past the end. Use an offset from 1 to ${lineNumber}.`,
      { code: "offset_out_of_range" },
    );
  }
  const last = first + lines.length - 1;
  const range = `Lines ${first}-${last} of ${name}`;
  const limit = stoppedBy === "size" ? ` (the ${formatBytes(maxBytes)} limit)` : "";
  const rest = stoppedBy === "end" ? "end of file" : `more follow: continue with offset ${last + 1}`;
  return `${lines.join("\n")}\n[${range}${limit}; ${rest}.]`;
}

/** Creates the `read_file` tool: reads a text file inside the workspace, whole or by lines. */
export function createReadFileTool(options: ReadFileToolOptions) {
  const workspace = requireWorkspace(options.workspace, "read_file");
  const maxBytes = positiveInteger("maxBytes", options.maxBytes, 1024 * 1024);
  return tool(
    async ({ path, offset, limit }) => {
      const target = await resolveWorkspacePath(workspace, path);
      const size = await checkReadable(target);
      if (offset !== undefined || limit !== undefined) {
        return readLines(target, offset ?? 1, limit ?? Number.POSITIVE_INFINITY, maxBytes);
      }
      if (size > maxBytes) {
        throw new ToolInputError(
          `"${target.relative}" is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} read limit. ` +
            "Read it in parts with offset and limit (line numbers), e.g. offset 1 and limit 200.",
          { code: "file_too_large" },
        );
      }
      return readFile(target.absolute, "utf8");
    },
    {
      name: "read_file",
      description:
        "Reads a text file (plain text, CSV, JSON, Markdown, code) from the workspace and returns its text. " +
        `Paths are relative to the workspace; paths outside it are refused. Files over ${formatBytes(maxBytes)} ` +
        "must be read in parts: give offset (first line, from 1) and limit (number of lines); a partial read " +
        "ends with a note saying which lines were returned and where to continue.",
      schema: readFileSchema,
    },
  );
}
