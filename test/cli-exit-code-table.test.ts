// Every documented exit code through the real CLI (bin/svc-flow.js in a child process): 0 done,
// 1 the work failed or stopped (resumable), 2 bad usage or input (nothing spent), 3 waiting for a person.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
// Each case is a whole process (the agent command loads LangChain's agent loop): slow on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

const FILES: Record<string, string> = {
  "tool.yaml": `version: 1
steps:
  - id: sum
    uses: tool
    with: { tool: calculator, input: { expression: "1 + 2" } }
`,
  "chat.yaml": `version: 1
steps:
  - id: hello
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Say hello.", maxTokens: 16 }
`,
  "broken-model.yaml": `version: 1
steps:
  - id: hello
    uses: chat
    retry: { attempts: 1 }
    with: { model: beta-4o-mini, prompt: "Say hello.", maxTokens: 16 }
`,
  "all-fail-collect.yaml": `version: 1
steps:
  - id: lines
    map: [1, 2, 3]
    onItemError: collect
    steps:
      - id: line
        uses: chat
        retry: { attempts: 1 }
        with: { model: beta-4o-mini, prompt: "Line \${{ item }}", maxTokens: 16 }
`,
  "all-fail-skip.yaml": `version: 1
steps:
  - id: lines
    map: [1, 2, 3]
    onItemError: skip
    steps:
      - id: line
        uses: chat
        retry: { attempts: 1 }
        with: { model: beta-4o-mini, prompt: "Line \${{ item }}", maxTokens: 16 }
`,
  "tight-budget.yaml": `version: 1
budget: { maxYuan: 0.0001 }
steps:
  - id: hello
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Say hello.", maxTokens: 16 }
`,
  "approval.yaml": `version: 1
steps:
  - id: sign-off
    uses: approval
    with: { prompt: "Print the posters?" }
`,
  "bad.yaml": `version: 1
steps:
  - id: sum
    uses: tool
    with: { tool: calculater, input: { expression: "1 + 2" } }
`,
};

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  gateway = await startLocalGateway({
    config: {
      keys: [{ key: "sk-all-models" }, { key: "sk-beta-only", models: ["beta-4o"] }],
      faults: { seed: 1, models: { "beta-4o-mini": { errorRate: 1, status: 503 } } },
    },
  });
  folder = await tempDir("svc-flow-exit-");
  for (const [name, text] of Object.entries(FILES)) await writeFile(path.join(folder, name), text);
});
afterAll(async () => gateway?.close());

function cli(
  argv: readonly string[],
  key = "sk-all-models",
  unset?: "SVC_BASE_URL" | "SVC_API_KEY",
): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: key };
  if (unset !== undefined) delete env[unset];
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: folder,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

let runs = 0;
const out = () => `run-${++runs}`;

describe("exit codes of the real CLI", () => {
  it.each([
    { code: 0, what: "a run that is done", argv: () => ["run", "tool.yaml", "--out", out()], says: "Done." },
    {
      code: 1,
      what: "a run whose step fails upstream",
      argv: () => ["run", "broken-model.yaml", "--out", out()],
      says: "Failed [upstream_error]",
    },
    {
      code: 1,
      what: "a collect map where every item failed",
      argv: () => ["run", "all-fail-collect.yaml", "--out", out()],
      says: "0 of 3 items succeeded (lines)",
    },
    {
      code: 1,
      what: "a skip map where every item failed",
      argv: () => ["run", "all-fail-skip.yaml", "--out", out()],
      says: "all_items_failed",
    },
    {
      code: 3,
      what: "a run waiting for a person",
      argv: () => ["run", "approval.yaml", "--out", out()],
      says: "svc-flow approve",
    },
    { code: 2, what: "no command", argv: () => [], says: "Usage: svc-flow" },
    { code: 2, what: "an unknown command", argv: () => ["fly"], says: 'Unknown command "fly"' },
    { code: 2, what: "a workflow that does not validate", argv: () => ["validate", "bad.yaml"], says: "calculator" },
    {
      code: 2,
      what: "run of a workflow that does not validate",
      argv: () => ["run", "bad.yaml", "--out", out()],
      says: "[invalid_workflow]",
    },
    { code: 2, what: "resume of a folder that holds no run", argv: () => ["resume", "."], says: "[invalid_run_dir]" },
  ])("exits $code for $what", async ({ code, argv, says }) => {
    const result = await cli(argv());
    expect(result.output).toContain(says);
    expect(result.code).toBe(code);
  });

  it.each([
    { command: "run", argv: () => ["run", "chat.yaml", "--out", out()] },
    { command: "models", argv: () => ["models"] },
    { command: "chat", argv: () => ["chat", "Hello", "--model", "alpha-sonnet-4-6"] },
    { command: "agent", argv: () => ["agent", "research-assistant", "Hello"] },
    { command: "music", argv: () => ["music", "A short jingle", "--instrumental"] },
  ])("exits 2 from $command for a wrong key, with nothing made", async ({ argv }) => {
    const args = argv();
    const result = await cli(args, "sk-not-a-key");
    expect(result.output).toContain("[invalid_api_key");
    expect(result.code).toBe(2);
    if (args[0] === "run") expect(existsSync(path.join(folder, args[3]!))).toBe(false);
  });

  it.each([
    { command: "run", argv: () => ["run", "chat.yaml", "--out", out()] },
    { command: "chat", argv: () => ["chat", "Hello"] },
    { command: "agent", argv: () => ["agent", "research-assistant", "Hello"] },
    { command: "music", argv: () => ["music", "A short jingle"] },
  ])("exits 2 from $command for a key with a trailing space", async ({ argv }) => {
    const result = await cli(argv(), "sk-all-models ");
    expect(result.output).toContain("whitespace");
    expect(result.code).toBe(2);
  });

  it.each([
    { command: "run", argv: () => ["run", "chat.yaml", "--out", out()], says: "alpha-sonnet-4-6" },
    { command: "chat", argv: () => ["chat", "Hello", "--model", "alpha-sonnet-4-6"], says: "[model_not_found" },
  ])("exits 2 from $command for a model the key may not call", async ({ argv, says }) => {
    const args = argv();
    const result = await cli(args, "sk-beta-only");
    expect(result.output).toContain(says);
    expect(result.code).toBe(2);
    if (args[0] === "run") expect(existsSync(path.join(folder, args[3]!))).toBe(false);
  });

  it.each([
    { unset: "SVC_BASE_URL", says: "[missing_base_url]" },
    { unset: "SVC_API_KEY", says: "[missing_api_key]" },
  ] as const)(
    "exits 2 from run and rerun when $unset alone is missing, with no run directory made",
    async ({ unset, says }) => {
      const done = out();
      expect((await cli(["run", "tool.yaml", "--out", done])).code).toBe(0);
      for (const argv of [
        ["run", "chat.yaml", "--out", out()],
        ["rerun", done, "--out", out()],
      ]) {
        const result = await cli(argv, "sk-all-models", unset);
        expect(result.output).toContain(says);
        expect(result.code).toBe(2);
        expect(existsSync(path.join(folder, argv[3]!))).toBe(false);
      }
    },
  );

  it("exits 2 from runs --dir naming a file, with one line and no stack trace", async () => {
    const result = await cli(["runs", "--dir", "tool.yaml"]);
    expect(result.code).toBe(2);
    expect(result.output).toContain(`${path.join(folder, "tool.yaml")} is a file. Pass the folder`);
    expect(result.output).not.toMatch(/ENOTDIR|\n\s+at /);
  });

  it("exits 2 with one line from every --redis command when nothing listens at the URL", async () => {
    const closed = createServer().listen(0, "127.0.0.1");
    await once(closed, "listening");
    const url = `redis://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    for (const argv of [
      ["worker", "--redis", url],
      ["run", "tool.yaml", "--redis", url, "--out", out()],
      ["resume", "some-run-id", "--redis", url],
    ]) {
      const result = await cli(argv);
      expect(result.output).toContain(`Cannot reach Redis at ${url} (ECONNREFUSED)`);
      expect(result.output).not.toContain("Unhandled error");
      expect(result.output.trim().split("\n")).toHaveLength(1);
      expect(result.code).toBe(2);
    }
  });

  it.each([
    { flag: "run --out", argv: () => ["run", "tool.yaml", "--out", "tool.yaml"], says: "tool.yaml is a file" },
    {
      flag: "run --workspace",
      argv: () => ["run", "tool.yaml", "--out", out(), "--workspace", "chat.yaml/ws"],
      says: "chat.yaml is a file",
    },
    {
      flag: "chat --out",
      argv: () => ["chat", "A lantern", "--model", "gamma-2.5-flash-image", "--out", "tool.yaml/poster.png"],
      says: "is not a folder",
    },
    { flag: "music --out", argv: () => ["music", "A jingle", "--out", "tool.yaml"], says: "tool.yaml is a file" },
    { flag: "diff --html", argv: () => ["diff", ".", ".", "--html", "tool.yaml/d.html"], says: "is not a folder" },
    { flag: "mcp serve --workflows", argv: () => ["mcp", "serve", "--workflows", "nowhere"], says: "no such folder" },
  ])("exits 2 from $flag naming a path it cannot use, before paying, with no stack trace", async ({ argv, says }) => {
    const billed = gateway.stats().keys.reduce((sum, key) => sum + key.billed.length, 0);
    const result = await cli(argv());
    expect(result.output).toContain(says);
    expect(result.output).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(2);
    expect(gateway.stats().keys.reduce((sum, key) => sum + key.billed.length, 0)).toBe(billed);
  });

  it("exits 2 from resume for a wrong key, leaving the run as it was", async () => {
    const runDir = out();
    expect((await cli(["run", "broken-model.yaml", "--out", runDir])).code).toBe(1);
    const journal = await readFile(path.join(folder, runDir, "journal.jsonl"), "utf8");
    const result = await cli(["resume", runDir], "sk-not-a-key");
    expect(result.output).toContain("[invalid_api_key");
    expect(result.code).toBe(2);
    expect(await readFile(path.join(folder, runDir, "journal.jsonl"), "utf8")).toBe(journal);
  });

  it("gives a failed run's fix once", async () => {
    const result = await cli(["run", "broken-model.yaml", "--out", out()]);
    const failed = result.output.split("\n").find((line) => line.startsWith("Failed [upstream_error]")) ?? "";
    expect(failed.match(/fall back/g)).toHaveLength(1);
    expect(failed.match(/svc-flow resume/g)).toHaveLength(1);
  });

  it("says a budget stop once, with one way to raise the cap", async () => {
    const result = await cli(["run", "tight-budget.yaml", "--out", out()]);
    expect(result.output.match(/Stopped by the budget/g)).toHaveLength(1);
    expect(result.output).toContain("resume with a raised budget: svc-flow resume");
    expect(result.output).not.toContain("Raise --budget or budget.maxYuan and resume. Finished steps");
    expect(result.code).toBe(1);
  });
});
