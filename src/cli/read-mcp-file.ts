import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { ConfigError } from "../errors.js";
import { mcpSectionSchema, type McpSection } from "../workflow/mcp/mcp-section-schema.js";
import { checkMcpExpressions } from "../workflow/mcp/resolve-mcp-env.js";

/** Reads `--mcp FILE`: a YAML or JSON file holding a workflow-style `mcp:` section (or just its servers). */
export async function readMcpFile(file: string): Promise<McpSection> {
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    throw new ConfigError(`Cannot read the MCP file ${file}: ${(error as Error).message}.`, {
      code: "invalid_config",
      cause: error,
    });
  });
  let value: unknown;
  try {
    value = parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`${file} is not YAML or JSON: ${(error as Error).message}`, { code: "invalid_config" });
  }
  const section =
    value !== null && typeof value === "object" && "mcp" in value ? (value as { mcp: unknown }).mcp : value;
  const parsed = mcpSectionSchema.safeParse(section);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `${file}: mcp.${issue.path.join(".")}: ${issue.message}. Write it as a workflow's mcp: section, e.g. mcp: { files: { command: node, args: [server.mjs] } }.`,
      {
        code: "invalid_config",
      },
    );
  }
  const problem = checkMcpExpressions(parsed.data)[0];
  if (problem !== undefined)
    throw new ConfigError(`${file}: ${problem.path.join(".")}: ${problem.message}`, { code: "invalid_config" });
  return parsed.data;
}
