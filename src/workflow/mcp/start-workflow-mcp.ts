import type { Workflow } from "../load/load-workflow.js";
import type { McpServers } from "./mcp-servers.js";
import { resolveMcpEnv } from "./resolve-mcp-env.js";

/**
 * Starts the MCP servers of a workflow's `mcp:` section (reading `${{ env.NAME }}` from `env`), lists
 * their tools and checks the workflow's `server/tool` names and tool-step arguments against them.
 * Undefined when the workflow has no servers. On any failure the servers started are stopped.
 */
export async function startWorkflowMcp(
  workflow: Workflow,
  options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<McpServers | undefined> {
  const section = workflow.definition.mcp;
  if (section === undefined || Object.keys(section).length === 0) return undefined;
  // The SDK loads only for workflows that use it.
  const [{ McpServers: Servers }, { checkMcpTools }] = await Promise.all([
    import("./mcp-servers.js"),
    import("./check-mcp-tools.js"),
  ]);
  const servers = await Servers.start(resolveMcpEnv(section, options.env ?? process.env), {
    baseDir: workflow.baseDir,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    checkMcpTools(workflow, servers);
    return servers;
  } catch (error) {
    await servers.close();
    throw error;
  }
}
