import { mcpToolWireName } from "./mcp-tools.js";

/**
 * Whether a tool (by the name the model calls it) is one of `names`: a tool from tools/ or of your
 * own by its name, an MCP tool as `server/tool` (the model calls it `server__tool`), or all of a
 * server's tools as `server/*`.
 */
export function toolMatcher(names: readonly string[]): (toolName: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const name of names) {
    const slash = name.indexOf("/");
    if (slash === -1) exact.add(name);
    else if (name.slice(slash + 1) === "*") prefixes.push(mcpToolWireName({ server: name.slice(0, slash), name: "" }));
    else exact.add(mcpToolWireName({ server: name.slice(0, slash), name: name.slice(slash + 1) }));
  }
  return (toolName) => exact.has(toolName) || prefixes.some((prefix) => toolName.startsWith(prefix));
}
