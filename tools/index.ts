import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Dispatcher } from "undici";
import { ConfigError } from "../src/errors.js";
import { createCalculatorTool } from "./calculator.js";
import { createCurrentTimeTool } from "./current-time.js";
import { createFetchUrlTool } from "./fetch-url.js";
import { createListFilesTool } from "./list-files.js";
import { createReadFileTool } from "./read-file.js";
import { createWriteFileTool } from "./write-file.js";
import { requireWorkspace } from "./support/check-option.js";

/**
 * What tools may need from the run that creates them. Every field is optional; a tool that needs one
 * that is missing fails at creation with a ConfigError naming the field. Tools over the gateway add
 * their own optional fields here (a gateway client, a cost ledger) the same way.
 */
export interface ToolContext {
  /** Folder the file tools (read_file, write_file, list_files) are confined to. */
  workspace?: string;
  /** read_file: largest file read whole, and the most text one call returns. Default 1 MiB. */
  maxReadBytes?: number;
  /** write_file: largest content one call may write. Default 10 MiB. */
  maxWriteBytes?: number;
  /** fetch_url: most body bytes read. Default 256 KiB. */
  fetchMaxBytes?: number;
  /** fetch_url: time for the whole fetch. Default 15000 ms. */
  fetchTimeoutMs?: number;
  /** fetch_url: undici dispatcher (proxy, test agent). Default: undici's global one. */
  dispatcher?: Dispatcher;
  /** current_time: zone used when the model names none. Default: the machine's zone. */
  timeZone?: string;
  /** current_time: the clock. Default `() => new Date()`. */
  now?: () => Date;
}

const FACTORIES = {
  calculator: () => createCalculatorTool(),
  current_time: (context: ToolContext) => createCurrentTimeTool({ timeZone: context.timeZone, now: context.now }),
  fetch_url: (context: ToolContext) =>
    createFetchUrlTool({
      maxBytes: context.fetchMaxBytes,
      timeoutMs: context.fetchTimeoutMs,
      dispatcher: context.dispatcher,
    }),
  list_files: (context: ToolContext) =>
    createListFilesTool({ workspace: requireWorkspace(context.workspace, "list_files") }),
  read_file: (context: ToolContext) =>
    createReadFileTool({
      workspace: requireWorkspace(context.workspace, "read_file"),
      maxBytes: context.maxReadBytes,
    }),
  write_file: (context: ToolContext) =>
    createWriteFileTool({
      workspace: requireWorkspace(context.workspace, "write_file"),
      maxBytes: context.maxWriteBytes,
    }),
} satisfies Record<string, (context: ToolContext) => StructuredToolInterface>;

/** The name of a tool in the library, as the model and workflow files see it. */
export type ToolName = keyof typeof FACTORIES;

/** The names of every tool in the library, sorted. */
export function listToolNames(): ToolName[] {
  return (Object.keys(FACTORIES) as ToolName[]).sort();
}

/** Whether `name` is a tool in the library. */
export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(FACTORIES, name);
}

/** Creates the named tools, in the order given; an unknown name is a ConfigError listing the known ones. */
export function createTools(names: readonly string[], context: ToolContext = {}): StructuredToolInterface[] {
  const unknown = names.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `Unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `"${name}"`).join(", ")}. ` +
        `Known tools: ${listToolNames().join(", ")}.`,
      { code: "unknown_tool" },
    );
  }
  // A name listed twice would give the model two identical tools; once is what was meant.
  return [...new Set(names as readonly ToolName[])].map((name) => FACTORIES[name](context));
}

export {
  createCalculatorTool,
  createCurrentTimeTool,
  createFetchUrlTool,
  createListFilesTool,
  createReadFileTool,
  createWriteFileTool,
};
export type { CurrentTimeToolOptions } from "./current-time.js";
export type { FetchUrlToolOptions } from "./fetch-url.js";
export type { ListFilesToolOptions } from "./list-files.js";
export type { ReadFileToolOptions } from "./read-file.js";
export type { WriteFileToolOptions } from "./write-file.js";
