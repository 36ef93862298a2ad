// An MCP tool's result leaves the process (to the model, the journal, the report): a secret the
// server was given through ${{ env.NAME }} is redacted by value even when the server echoes it.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mcpLangChainTools } from "../agents/support/mcp-tools.js";
import { McpServers } from "../src/workflow/mcp/mcp-servers.js";
import { resolveMcpEnv } from "../src/workflow/mcp/resolve-mcp-env.js";

const SERVER = path.join(import.meta.dirname, "fixtures", "mcp", "files-server.mjs");
const TOKEN = "files-secret-4b7e91d2c8";

describe("MCP tool results", () => {
  it("are redacted by value: a server that echoes its ${{ env }} token gives [redacted]", async () => {
    const section = resolveMcpEnv(
      { files: { command: "node", args: [SERVER], env: { NOTE_TOKEN: "${{ env.FILES_TOKEN }}" } } },
      { FILES_TOKEN: TOKEN },
    );
    const servers = await McpServers.start(section, { baseDir: import.meta.dirname });
    try {
      const [echo] = mcpLangChainTools(servers, ["files/echo_env"]);

      const text: unknown = await echo!.invoke({ name: "NOTE_TOKEN" });

      expect(text).toBe("NOTE_TOKEN=[redacted]");
    } finally {
      await servers.close();
    }
  });
});
