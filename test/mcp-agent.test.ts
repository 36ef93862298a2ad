// Agents with MCP tools: `defineAgent` takes MCP servers in code, `svc-flow agent --mcp FILE` takes a
// workflow-style mcp: section from a file; both call a real MCP server (test/fixtures/mcp) over stdio.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AgentRunner, defineAgent } from "../agents/index.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { tempDir, useGateway } from "./workflow-harness.js";

const SERVER = path.join(import.meta.dirname, "fixtures", "mcp", "files-server.mjs");
const gateway = useGateway();

describe("agents with MCP tools", () => {
  it("runs an agent defined in code with an MCP server, calling the tool it names and stopping the server on close", async () => {
    const agent = defineAgent({
      name: "note-reader",
      description: "Reads notes",
      system: "Use the tools to answer.",
      model: "alpha-sonnet-4-6",
      tools: ["files/read_note"],
      mcp: { files: { command: "node", args: [SERVER] } },
    });
    const runner = new AgentRunner(agent, {
      workspace: await tempDir(),
      gateway: { baseURL: gateway.current.baseURL, apiKey: "sk-local-demo" },
    });
    try {
      const outcome = await runner.run("Read the note named launch and say when the launch is.");
      const call = outcome.toolCalls.find((toolCall) => toolCall.name === "files__read_note");
      expect(call?.failed).toBe(false);
      expect(call?.result).toMatch(/^The lantern/);
    } finally {
      await runner.close();
    }
  });

  it("refuses in defineAgent an MCP tool of a server the definition does not start", () => {
    expect(() =>
      defineAgent({ name: "stray", description: "x", system: "x", model: "alpha-sonnet-4-6", tools: ["search/find"] }),
    ).toThrow(/search\/find.*mcp: does not define/);
  });

  it("gives svc-flow agent every tool of the servers in --mcp FILE", async () => {
    const folder = await tempDir();
    await writeFile(
      path.join(folder, "mcp.yaml"),
      `mcp:\n  files: { command: node, args: [${JSON.stringify(SERVER)}] }\n`,
    );
    const { code, stdout } = await runCli(
      ["agent", "research-assistant", "Add 2 and 3 with the add tool.", "--mcp", "mcp.yaml", "--json", "--out", "run"],
      {
        env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
        cwd: folder,
      },
    );
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout.text) as { toolCalls: Array<{ name: string; result: string }> };
    expect(outcome.toolCalls.find((call) => call.name === "files__add")?.result).toBe('{"sum":5}');
  });
});
