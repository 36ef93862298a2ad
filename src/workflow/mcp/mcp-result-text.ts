import { redactSecrets } from "../../errors.js";
import type { McpCallResult } from "./mcp-servers.js";

/**
 * An MCP tool's result as the text a model (or a tool step) reads: text parts as they are, resource
 * links by URI, other media by type; structured content alone as JSON. Secrets are redacted by value:
 * the text goes on to a model, the journal and the report, and a server may echo the token it was given.
 */
export function mcpResultText(result: McpCallResult): string {
  return redactSecrets(resultText(result));
}

function resultText(result: McpCallResult): string {
  const parts = result.content.map((part) => {
    switch (part.type) {
      case "text":
        return String(part.text ?? "");
      case "resource_link":
        return `${String(part.name ?? "resource")}: ${String(part.uri ?? "")}`;
      case "resource": {
        const resource = (part.resource ?? {}) as { uri?: unknown; text?: unknown };
        return typeof resource.text === "string" ? resource.text : `resource: ${String(resource.uri ?? "")}`;
      }
      default:
        return `[${String(part.type)}${typeof part.mimeType === "string" ? ` ${part.mimeType}` : ""}]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}
