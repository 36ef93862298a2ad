// Ctrl-C and SIGTERM as a shell user sends them to the real CLI (bin/svc-flow.js in a child process).
import { existsSync } from "node:fs";
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

const BATCH_FLOW = `version: 1
name: slow-batch
inputs:
  product: { type: string }
steps:
  - id: pitch
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "A pitch for \${{ inputs.product }}.", maxTokens: 16 }
`;

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

describe("svc-flow run and batch on SIGTERM", () => {
  it.each([
    { what: "a run", flow: CHAT_FLOW, extra: [], started: "… hello (chat)" },
    { what: "a batch", flow: BATCH_FLOW, extra: ["--items", "rows.jsonl"], started: "… items[0].pitch (chat)" },
  ])(
    "stops $what as Ctrl-C does: journal closed, lock released, resumable, exit 1",
    async ({ flow, extra, started }) => {
      await writeFile(path.join(folder, "flow.yaml"), flow);
      await writeFile(path.join(folder, "rows.jsonl"), '{"product":"lantern"}\n{"product":"kettle"}\n');
      const runDir = path.join(folder, `run-${++runs}`);
      const cli = spawnCli(["run", "flow.yaml", "--out", runDir, ...extra], { cwd: folder, env: env() });
      await cli.waitFor(started);
      cli.child.kill("SIGTERM");
      const { code } = await cli.exit;
      expect(cli.stderr()).toContain(`Interrupted; resume with \`svc-flow resume ${path.basename(runDir)}\``);
      expect(await lastRecord(runDir)).toMatchObject({
        type: "run-finished",
        status: "stopped",
        reason: "interrupted",
      });
      expect(existsSync(path.join(runDir, "run.lock"))).toBe(false);
      expect(code).toBe(1);
    },
  );
});

describe("a second Ctrl-C while stopping", () => {
  it("quits at once with exit 130 while the first waits for a call in flight", async () => {
    await writeFile(path.join(folder, "slow-gateway.yaml"), "faults: { latencyMs: 60000 }\n");
    const cli = spawnCli(["gateway", "--port", "0", "--config", "slow-gateway.yaml"], { cwd: folder });
    await cli.waitFor("listening on", "stdout");
    const baseURL = /(http:\/\/\S+\/v1)/.exec(cli.stdout())![1]!;
    // A call the gateway holds for a minute: closing it waits for that call.
    const call = fetch(`${baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-local-demo", "content-type": "application/json" },
      body: JSON.stringify({ model: "alpha-sonnet-4-6", messages: [{ role: "user", content: "hi" }] }),
    }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    cli.child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(cli.child.exitCode).toBeNull();
    cli.child.kill("SIGINT");
    expect((await cli.exit).code).toBe(130);
    await call;
  });
});
