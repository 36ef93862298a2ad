// `svc-flow mcp serve` as a real process, driven by the MCP SDK's own client over stdio: it lists the
// shipped workflows as tools (inputs as their schemas) and runs one, answering with its outputs.
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, useGateway } from "./workflow-harness.js";

const ROOT = path.join(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "svc-flow.js");
const gateway = useGateway();
let client: Client;

beforeAll(async () => {
  const cwd = await tempDir("svc-flow-mcp-serve-");
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "serve", "--workflows", path.join(ROOT, "workflows")],
      cwd,
      env: { ...getDefaultEnvironment(), SVC_BASE_URL: gateway.current.baseURL, SVC_API_KEY: "sk-local-demo" },
      stderr: "ignore",
    }),
  );
}, 60_000);
afterAll(async () => client?.close());

describe("svc-flow mcp serve", () => {
  it("lists each shipped workflow as a tool whose schema is the workflow's inputs", async () => {
    const { tools } = await client.listTools();
    const launchKit = tools.find((tool) => tool.name === "launch-kit");
    expect(launchKit?.description).toContain("Taglines, posters");
    expect(launchKit?.inputSchema.properties).toMatchObject({
      product: { type: "string", default: "a solar lantern" },
      unitCost: { type: "number" },
    });
    expect(tools.map((tool) => tool.name)).toContain("blurbs");
  });

  it("runs a shipped workflow on a call and answers with its outputs and its artifacts as resource links", {
    timeout: 120_000,
  }, async () => {
    const result = await client.callTool(
      { name: "launch-kit", arguments: { product: "a folding kettle" } },
      undefined,
      { timeout: 110_000 },
    );
    expect(result.isError).toBeFalsy();
    const outputs = result.structuredContent as Record<string, unknown>;
    expect(Object.keys(outputs).length).toBeGreaterThan(0);
    const content = result.content as Array<{ type: string; text?: string; uri?: string }>;
    expect(JSON.parse(content[0]!.text!)).toEqual(outputs);
    expect(content.some((part) => part.type === "resource_link" && part.uri?.startsWith("file://"))).toBe(true);
  });
});
