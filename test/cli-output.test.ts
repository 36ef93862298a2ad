// What the real CLI writes into a file or pipe: plain lines, colour only when asked for.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { colourOn } from "../src/cli/terminal-style.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { spawnCli } from "./cli-process.js";
import { tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

const FLOW = `version: 1
name: hello
steps:
  - id: hello
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Say hello.", maxTokens: 16 }
`;

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  gateway = await startLocalGateway({});
  folder = await tempDir("svc-flow-output-");
  await writeFile(path.join(folder, "hello.yaml"), FLOW);
});
afterAll(async () => gateway?.close());

let runs = 0;
async function run(extraEnv: NodeJS.ProcessEnv = {}) {
  const cli = spawnCli(["run", "hello.yaml", "--out", `run-${++runs}`], {
    cwd: folder,
    env: { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo", ...extraEnv },
  });
  const { code } = await cli.exit;
  expect(code, cli.stderr()).toBe(0);
  return { stdout: cli.stdout(), stderr: cli.stderr() };
}

describe("progress into a pipe", () => {
  it("is plain lines with no escape codes or carriage returns", async () => {
    const { stdout, stderr } = await run();
    expect(stderr).toContain("✓ hello");
    expect(stdout + stderr).not.toMatch(/[\x1b\r]/);
  });

  it("is coloured with FORCE_COLOR, still without cursor movement", async () => {
    const { stderr } = await run({ FORCE_COLOR: "1" });
    expect(stderr).toContain("\x1b[32m✓\x1b[39m hello");
    expect(stderr).not.toMatch(/\x1b\[\d*[AK]|\r/);
  });
});

describe("colourOn", () => {
  it.each([
    { isTTY: true, env: {}, on: true },
    { isTTY: false, env: {}, on: false },
    { isTTY: true, env: { NO_COLOR: "1" }, on: false },
    { isTTY: true, env: { TERM: "dumb" }, on: false },
    { isTTY: false, env: { FORCE_COLOR: "1" }, on: true },
    { isTTY: false, env: { FORCE_COLOR: "" }, on: true },
    { isTTY: true, env: { FORCE_COLOR: "0" }, on: false },
    { isTTY: true, env: { FORCE_COLOR: "false" }, on: false },
    { isTTY: true, env: { NO_COLOR: "1", FORCE_COLOR: "1" }, on: true },
  ])("is $on on a TTY $isTTY with $env", ({ isTTY, env, on }) => {
    expect(colourOn({ isTTY }, env)).toBe(on);
  });
});
