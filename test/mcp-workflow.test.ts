// Workflows that use the tools of real MCP servers (test/fixtures/mcp/files-server.mjs, written with
// the SDK) over stdio and over streamable HTTP: tool and agent steps call them, the calls are in the
// journal, a server that does not start or dies is a clear error with its stderr.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { recordsOf, runText, tempDir, useGateway } from "./workflow-harness.js";

const SERVER = path.join(import.meta.dirname, "fixtures", "mcp", "files-server.mjs");
const TOKEN = "files-token-7f3a9c21";
const gateway = useGateway();

const STEPS = `defaults: { model: alpha-sonnet-4-6, maxTokens: 256 }
steps:
  - id: sum
    uses: tool
    with: { tool: files/add, input: { a: 2, b: 3 } }
  - id: helper
    uses: agent
    with: { tools: [files/read_note], prompt: "Read the note named launch and say when the launch is." }
`;

let http: ChildProcess;
let httpURL: string;
beforeAll(async () => {
  http = spawn(process.execPath, [SERVER, "--http"], {
    env: { ...process.env, TOKEN },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = await createInterface({ input: http.stdout! })
    [Symbol.asyncIterator]()
    .next()
    .then((first) => [first.value as string]);
  httpURL = line!.trim();
});
afterAll(() => {
  http?.kill();
});

describe("MCP tools in workflows", () => {
  it("calls a stdio server's tools from a tool step and an agent step, and journals the calls and results", async () => {
    const { result, journal } = await runText(
      gateway.current,
      `version: 1\nmcp:\n  files: { command: node, args: [${JSON.stringify(SERVER)}] }\n${STEPS}`,
    );
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("done");
    const outputs = Object.fromEntries(
      recordsOf(journal, "step-finished").map((record) => [record.key, record.output]),
    ) as Record<string, { toolCalls?: Array<{ name: string; result: string; failed: boolean }> }>;
    expect(outputs.sum).toEqual({ sum: 5 });
    const call = outputs.helper?.toolCalls?.find((toolCall) => toolCall.name === "files__read_note");
    expect(call?.failed).toBe(false);
    expect(call?.result).toMatch(/^The lantern (launch is on Friday|costs 129 yuan)/);
  });

  it("calls a streamable HTTP server with a header read from the environment, which no file of the run holds", async () => {
    const outDir = path.join(await tempDir(), "run");
    const text = `version: 1\nmcp:\n  files: { url: "${httpURL}", headers: { Authorization: "Bearer \${{ env.FILES_TOKEN }}" } }\n${STEPS}`;
    const { result } = await runText(gateway.current, text, { outDir, env: { FILES_TOKEN: TOKEN } });
    expect(result.status).toBe("done");
    expect(result.outputs?.sum).toEqual({ sum: 5 });
    for (const file of ["journal.jsonl", "report.html", "outputs.json", "workflow.yaml"]) {
      expect(await readFile(path.join(outDir, file), "utf8")).not.toContain(TOKEN);
    }
  });

  it("refuses the HTTP server without its token, naming the server", async () => {
    const text = `version: 1\nmcp:\n  files: { url: "${httpURL}", headers: { Authorization: "Bearer \${{ env.FILES_TOKEN }}" } }\n${STEPS}`;
    await expect(runText(gateway.current, text, { env: { FILES_TOKEN: "wrong-token-123" } })).rejects.toMatchObject({
      code: "mcp_server_failed",
      message: expect.stringContaining('"files"'),
    });
  });

  it("fails the step with mcp_server_failed and the server's stderr when the server dies mid-run", async () => {
    const { result } = await runText(
      gateway.current,
      `version: 1\nmcp:\n  files: { command: node, args: [${JSON.stringify(SERVER)}] }\nsteps:\n  - id: boom\n    uses: tool\n    with: { tool: files/crash }\n`,
    );
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("mcp_server_failed");
    expect(result.error?.message).toContain("crashing on purpose");
  });
});

describe("MCP servers at validate time", () => {
  async function cli(argv: string[], cwd: string) {
    const { code, stdout, stderr } = await runCli(argv, {
      env: { ...process.env, ...gatewayEnv(gateway.current.baseURL, "sk-local-demo") },
      cwd,
    });
    return { code, stdout: stdout.text, stderr: stderr.text };
  }

  it("lists the server's tools when the file validates", async () => {
    const folder = await tempDir();
    await writeFile(
      path.join(folder, "flow.yaml"),
      `version: 1\nmcp:\n  files: { command: node, args: [${JSON.stringify(SERVER)}] }\n${STEPS}`,
    );
    const checked = await cli(["validate", "flow.yaml"], folder);
    expect(checked.stdout).toContain("4 MCP tools from files");
    expect(checked.code).toBe(0);
  });

  it("is a load error (exit 2) quoting the stderr of a server whose command fails", async () => {
    const folder = await tempDir();
    await writeFile(
      path.join(folder, "flow.yaml"),
      `version: 1\nmcp:\n  files: { command: node, args: [./missing-server.mjs] }\n${STEPS}`,
    );
    for (const argv of [
      ["validate", "flow.yaml"],
      ["run", "flow.yaml", "--out", "run"],
    ]) {
      const refused = await cli(argv, folder);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("missing-server.mjs");
      expect(refused.stderr).toContain("Cannot find module");
    }
  });

  it("names file, line and the server's tools for a tool it does not list, and checks literal arguments against its schema", async () => {
    const folder = await tempDir();
    const text = `version: 1\nmcp:\n  files: { command: node, args: [${JSON.stringify(SERVER)}] }\nsteps:\n  - id: a\n    uses: tool\n    with: { tool: files/remove }\n  - id: b\n    uses: tool\n    with: { tool: files/add, input: { a: 1, b: two } }\n`;
    await writeFile(path.join(folder, "flow.yaml"), text);
    const refused = await cli(["validate", "flow.yaml"], folder);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /flow\.yaml:7:\d+ steps\[0\]\.with\.tool: The MCP server "files" has no tool "remove"\. Its tools: read_note, add, echo_env, crash\./,
    );
    expect(refused.stderr).toMatch(
      /flow\.yaml:10:\d+ steps\[1\]\.with\.input: The arguments do not fit files\/add's input schema/,
    );
  });

  it("refuses at load a server that mcp: does not define, and an expression other than env.NAME inside mcp:", async () => {
    const folder = await tempDir();
    await writeFile(
      path.join(folder, "flow.yaml"),
      `version: 1\nmcp:\n  files: { command: "\${{ inputs.cmd }}" }\nsteps:\n  - id: a\n    uses: tool\n    with: { tool: search/find }\n`,
    );
    const refused = await cli(["validate", "flow.yaml"], folder);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('names the MCP server "search", which mcp: does not define');
    expect(refused.stderr).toContain("only ${{ env.NAME }} is read");
  });
});
