// The library's tool names alone, so a workflow file can be checked without loading any tool.

/** Every tool in the library, sorted; tools/index.ts has one factory per name. */
export const TOOL_NAMES = [
  "calculator",
  "compose_music",
  "current_time",
  "describe_image",
  "edit_image",
  "fetch_url",
  "generate_image",
  "list_files",
  "read_file",
  "understand_audio",
  "write_file",
] as const;

/** The name of a tool in the library, as the model and workflow files see it. */
export type ToolName = (typeof TOOL_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(TOOL_NAMES);

/** The names of every tool in the library, sorted. */
export function listToolNames(): ToolName[] {
  return [...TOOL_NAMES];
}

/** Whether `name` is a tool in the library. */
export function isToolName(name: string): name is ToolName {
  return NAMES.has(name);
}
