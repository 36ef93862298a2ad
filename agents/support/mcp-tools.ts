import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ConfigError, McpToolError } from "../../src/errors.js";
import { mcpResultText } from "../../src/workflow/mcp/mcp-result-text.js";
import type { McpServers, McpTool } from "../../src/workflow/mcp/mcp-servers.js";

/** The name a model sees for an MCP tool: `server__tool` (a `/` is not allowed in a function name on the wire). */
export function mcpToolWireName(mcpTool: Pick<McpTool, "server" | "name">): string {
  return `${mcpTool.server}__${mcpTool.name}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/**
 * LangChain tools for the MCP tools that `references` name (`server/tool`, or `server/*`), calling
 * them on `servers`. A reference that names no listed tool is a ConfigError listing the server's tools.
 * A result the server marks as an error throws McpToolError, which an agent gets back as the tool's failure.
 */
export function mcpLangChainTools(servers: McpServers, references: readonly string[]): StructuredToolInterface[] {
  const seen = new Set<string>();
  const tools: StructuredToolInterface[] = [];
  for (const reference of references) {
    const found = servers.find(reference);
    if (found.length === 0) throw unknownMcpTool(servers, reference);
    for (const mcpTool of found) {
      const name = mcpToolWireName(mcpTool);
      if (seen.has(name)) continue;
      seen.add(name);
      tools.push(
        tool(
          async (input: Record<string, unknown>, config) => {
            const result = await servers.call(mcpTool.server, mcpTool.name, input, config?.signal);
            const text = mcpResultText(result);
            if (result.isError) throw new McpToolError(`${mcpTool.server}/${mcpTool.name}: ${text}`);
            return text;
          },
          {
            name,
            description: `${mcpTool.description ?? mcpTool.name} (MCP tool ${mcpTool.server}/${mcpTool.name})`,
            schema: mcpTool.inputSchema,
          },
        ) as StructuredToolInterface,
      );
    }
  }
  return tools;
}

/** The error for a `server/tool` that the running servers do not list. */
export function unknownMcpTool(servers: McpServers, reference: string): ConfigError {
  const server = reference.slice(0, reference.indexOf("/"));
  if (!servers.names.includes(server)) {
    return new ConfigError(
      `Unknown MCP server "${server}" in "${reference}". Servers in mcp: ${servers.names.join(", ") || "none"}.`,
      { code: "unknown_tool" },
    );
  }
  const listed = servers
    .tools()
    .filter((candidate) => candidate.server === server)
    .map((candidate) => candidate.name);
  return new ConfigError(
    `MCP server "${server}" has no tool "${reference.slice(server.length + 1)}". Its tools: ${listed.join(", ") || "none"}.`,
    { code: "unknown_tool" },
  );
}
