import { z } from "zod";

const serverName = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, {
  message: 'Expected a server name of letters, digits, "_" and "-", starting with a letter (e.g. "files")',
});

/** An MCP server started as a child process, spoken to over its stdin/stdout. */
export const mcpStdioServerSchema = z.strictObject({
  command: z.string().min(1).meta({ description: "The program, e.g. node or npx." }),
  args: z.array(z.string()).optional().meta({ description: "Its arguments; relative paths are read from cwd." }),
  env: z.record(z.string(), z.string()).optional().meta({
    description: "Environment variables besides the usual ones (PATH, HOME, ...); ${{ env.NAME }} reads yours.",
  }),
  cwd: z
    .string()
    .optional()
    .meta({ description: "Folder it runs in, relative to the workflow file. Default: the workflow file's folder." }),
});

/** An MCP server reached over streamable HTTP. */
export const mcpHttpServerSchema = z.strictObject({
  url: z.string().min(1).meta({ description: "Its endpoint, e.g. http://127.0.0.1:3001/mcp." }),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: 'Request headers, e.g. Authorization: "Bearer ${{ env.TOKEN }}".' }),
});

/** One MCP server, stdio or streamable HTTP. */
export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema], {
  error: () => "Expected a stdio server ({ command, args, env, cwd }) or a streamable HTTP server ({ url, headers })",
});

/** The `mcp:` section: MCP servers by name, whose tools steps name as `server/tool` (or `server/*`). */
export const mcpSectionSchema = z.record(serverName, mcpServerSchema).meta({
  description:
    "MCP servers whose tools agent, tool and chat steps name as server/tool (or server/* for all). ${{ env.NAME }} reads the environment here only; those values are secrets (never journaled, reported or printed).",
});

/** One MCP server as written. */
export type McpServerSpec = z.infer<typeof mcpServerSchema>;
/** The `mcp:` section as written. */
export type McpSection = z.infer<typeof mcpSectionSchema>;

/** Whether a server is started as a child process. */
export function isStdioServer(spec: McpServerSpec): spec is z.infer<typeof mcpStdioServerSchema> {
  return "command" in spec;
}
