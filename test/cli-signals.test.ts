// Ctrl-C and SIGTERM as a shell user sends them to the real CLI (bin/svc-flow.js in a child process).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { spawnCli } from "./cli-process.js";
import { tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  // Every call hangs long enough for the signal to land while it is in flight.
  gateway = await startLocalGateway({ config: { faults: { seed: 1, latencyMs: 20_000, models: {} } } });
  folder = await tempDir("svc-flow-signals-");
});
afterAll(async () => gateway?.close());

const env = () => ({ SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" });

const CHAT_FLOW = `version: 1
name: slow-chat
steps:
  - id: hello
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Say hello.", maxTokens: 16 }
`;

async function lastRecord(runDir: string): Promise<{ type: string; status?: string; reason?: string }> {
  const lines = (await readFile(path.join(runDir, "journal.jsonl"), "utf8")).trim().split("\n");
  return JSON.parse(lines.at(-1)!) as { type: string; status?: string; reason?: string };
}

let runs = 0;

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("svc-flow agent interrupted", () => {
  it("prints the interruption once and exits 1 on Ctrl-C", async () => {
    const cli = spawnCli(["agent", "research-assistant", "What is 2 + 2?", "--workspace", "."], {
      cwd: folder,
      env: env(),
    });
    await cli.waitFor("agent research-assistant model");
    cli.child.kill("SIGINT");
    const { code } = await cli.exit;
    expect(occurrences(cli.stderr(), "Received SIGINT"), cli.stderr()).toBe(1);
    expect(cli.stderr()).toContain("[aborted]");
    expect(code).toBe(1);
  });
});

describe("svc-flow run when its progress pipe closes", () => {
  it("stops resumably, as Ctrl-C does, without a stack trace", async () => {
    await writeFile(path.join(folder, "chat.yaml"), CHAT_FLOW);
    const runDir = path.join(folder, `run-${++runs}`);
    const cli = spawnCli(["run", "chat.yaml", "--out", runDir], { cwd: folder, env: env(), close: "stderr" });
    const { code } = await cli.exit;
    expect(await lastRecord(runDir)).toMatchObject({ type: "run-finished", status: "stopped", reason: "interrupted" });
    expect(cli.stdout()).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(1);
  });
});
