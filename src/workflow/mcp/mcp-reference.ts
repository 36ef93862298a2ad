/** Whether a tool name refers to an MCP server's tool (`server/tool`, `server/*`) rather than one from tools/. */
export function isMcpReference(name: string): boolean {
  return name.includes("/");
}

/** `server/tool` as [server, tool]. */
export function splitReference(reference: string): [string, string] {
  const slash = reference.indexOf("/");
  return [reference.slice(0, slash), reference.slice(slash + 1)];
}
