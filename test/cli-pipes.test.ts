// The real CLI writing into a pipe whose reader has gone (`svc-flow runs | head -1`).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { spawnCli } from "./cli-process.js";
import { tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

const FLOW = `version: 1
name: sum
steps:
  - id: sum
    uses: tool
    with: { tool: calculator, input: { expression: "1 + 2" } }
`;

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  gateway = await startLocalGateway({});
  folder = await tempDir("svc-flow-pipes-");
  await writeFile(path.join(folder, "sum.yaml"), FLOW);
  const env = { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" };
  for (const out of ["runs/one", "runs/two"]) {
    const { code } = await spawnCli(["run", "sum.yaml", "--out", out], { cwd: folder, env }).exit;
    expect(code).toBe(0);
  }
});
afterAll(async () => gateway?.close());

describe("output into a closed pipe", () => {
  it.each(["help", "runs", "runs --json", "models", "models --json", "models --all", "run --help"])(
    "svc-flow %s exits 0 without a stack trace",
    async (command) => {
      const cli = spawnCli(command.split(" "), {
        cwd: folder,
        env: { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" },
        close: "stdout",
      });
      const { code } = await cli.exit;
      expect(cli.stderr()).not.toMatch(/EPIPE|Error|at /);
      expect(code).toBe(0);
    },
  );

  it("svc-flow validate of several files stops quietly, with no word of an interruption nobody made (exit 1)", async () => {
    const files = ["sum.yaml", "sum.yaml", "sum.yaml", "sum.yaml"];
    const cli = spawnCli(["validate", ...files], { cwd: folder, close: "stdout" });
    const { code } = await cli.exit;
    expect(cli.stderr()).toBe("");
    expect(code).toBe(1);
  });

  it("svc-flow run whose Done line meets a closed stdout ends done, and its progress does not call it interrupted", async () => {
    const cli = spawnCli(["run", "sum.yaml", "--out", "runs/closed"], {
      cwd: folder,
      env: { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" },
      close: "stdout",
    });
    const { code } = await cli.exit;
    expect(cli.stderr()).toContain("✓ sum");
    expect(cli.stderr()).not.toContain("Interrupted");
    expect(code).toBe(0);
    const journal = await readFile(path.join(folder, "runs", "closed", "journal.jsonl"), "utf8");
    expect(journal).toContain('"status":"done"');
  });
});
