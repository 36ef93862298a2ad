// svc-flow run --reuse and svc-flow rerun through the real CLI (bin/svc-flow.js in a child process)
// against a local gateway whose billing shows what each run sent.
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { tempDir } from "./workflow-harness.js";

const BIN = path.resolve("bin/svc-flow.js");
const KIT = `version: 1
name: kit
inputs:
  product: { type: string, default: "a solar lantern" }
defaults: { model: alpha-sonnet-4-6, maxTokens: 60 }
steps:
  - id: pitch
    uses: chat
    with: { prompt: "One line pitch for \${{ inputs.product }}." }
  - id: fact
    uses: chat
    with: { prompt: "One fact about solar power." }
  - id: review
    uses: chat
    with: { prompt: "Improve: \${{ steps.pitch.output.text }}" }
`;

let gateway: LocalGateway;
let folder: string;
beforeAll(async () => {
  gateway = await startLocalGateway({ port: 0 });
  folder = await tempDir("svc-flow-rerun-");
  await writeFile(path.join(folder, "kit.yaml"), KIT);
});
afterAll(async () => gateway?.close());

function cli(argv: readonly string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: folder,
    env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

// Billed calls only: every command also asks GET /models, which is free.
const requests = () => gateway.stats().keys[0]?.billed.length ?? 0;

describe("svc-flow rerun and run --reuse", () => {
  beforeAll(async () => {
    expect((await cli(["run", "kit.yaml", "--out", "first"])).code).toBe(0);
  });

  it("rerun --from runs that step and what reads it, and prints the others as reused", async () => {
    const before = requests();
    const { code, output } = await cli(["rerun", "first", "--from", "pitch", "--out", "from-pitch"]);
    expect(code, output).toBe(0);
    expect(output).toMatch(/✓ fact reused from first, ¥0/);
    expect(output).not.toMatch(/pitch reused|review reused/);
    expect(requests() - before).toBe(2);
  });

  it("run --reuse with nothing changed sends no request", async () => {
    const before = requests();
    const { code, output } = await cli(["run", "kit.yaml", "--reuse", "first", "--out", "same"]);
    expect(code, output).toBe(0);
    expect(output.match(/reused from first/g)).toHaveLength(3);
    expect(requests()).toBe(before);
  });

  it("refuses a --reuse folder that is no run with exit 2, sending nothing", async () => {
    await mkdir(path.join(folder, "empty"), { recursive: true });
    const before = requests();
    const { code, output } = await cli(["run", "kit.yaml", "--reuse", "first,empty", "--out", "never"]);
    expect(code).toBe(2);
    expect(output).toMatch(/empty is not a run directory.*\[invalid_run_dir\]/s);
    expect(requests()).toBe(before);
  });

  it("refuses rerun --from a step the workflow does not have with exit 2", async () => {
    const { code, output } = await cli(["rerun", "first", "--from", "pitchh", "--out", "never-2"]);
    expect(code).toBe(2);
    expect(output).toContain('There is no step "pitchh"');
  });
});
