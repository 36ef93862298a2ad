// Offline, on the embedded gateway: a real `svc-flow run` killed (SIGKILL) while it polls a music
// job, then `svc-flow resume`, exits 0 with the bill of an uninterrupted run; the resumed run's new
// in-process gateway knows the journaled clips because the old one kept them in the run directory.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const FLOW = `version: 1
name: embedded-music
budget: { maxYuan: 10 }
defaults: { model: alpha-sonnet-4-6, maxTokens: 64 }
steps:
  - id: line
    uses: chat
    with: { prompt: "One line about a solar lantern." }
  - id: jingle
    uses: music
    with: { prompt: "A lantern jingle", instrumental: true }
outputs:
  line: \${{ steps.line.output.text }}
  jingle: \${{ steps.jingle.output.clips }}
`;

// No SVC_BASE_URL or SVC_API_KEY: every command starts its own embedded gateway.
function offlineEnv(): NodeJS.ProcessEnv {
  const { SVC_BASE_URL: _url, SVC_API_KEY: _key, ...env } = process.env;
  return env;
}

/** Runs the CLI in a child process; with `killWhen`, SIGKILLs it as soon as that holds. */
async function cli(
  argv: string[],
  cwd: string,
  killWhen?: (output: string) => Promise<boolean>,
): Promise<{ code: number | null; killed: boolean; output: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], { cwd, env: offlineEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let finished = false;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then(() => (finished = true));
  while (killWhen !== undefined && !finished) {
    if (await killWhen(output)) {
      child.kill("SIGKILL");
      await exited;
      return { code: null, killed: true, output };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { code: await exited, killed: false, output };
}

async function journalHas(runDir: string, fragment: string): Promise<boolean> {
  const text = await readFile(path.join(runDir, "journal.jsonl"), "utf8").catch(() => "");
  return text.includes(fragment);
}

describe("resume on the embedded gateway", () => {
  it("finishes a run killed during its music poll, offline, with the bill of an uninterrupted run", {
    timeout: 120_000,
  }, async () => {
    const folder = await tempDir("svc-flow-embedded-");
    const file = path.join(folder, "flow.yaml");
    await writeFile(file, FLOW);

    const whole = await cli(["run", file, "--out", path.join(folder, "whole")], folder);
    expect(whole.code, whole.output).toBe(0);

    const runDir = path.join(folder, "killed");
    const killed = await cli(["run", file, "--out", runDir], folder, () => journalHas(runDir, '"musicJob"'));
    expect(killed.killed, killed.output).toBe(true);
    // Killed with the job's bill and clip ids journaled, before its clips were in.
    expect(await journalHas(runDir, '"type":"step-finished","key":"jingle"')).toBe(false);

    const resumed = await cli(["resume", runDir], folder);
    expect(resumed.code, resumed.output).toBe(0);
    const cost = (await readJson(runDir, "cost.json")) as {
      totalYuan: number;
      byModel: Record<string, { calls: number }>;
    };
    const wholeCost = (await readJson(path.join(folder, "whole"), "cost.json")) as { totalYuan: number };
    expect(cost.totalYuan).toBe(wholeCost.totalYuan);
    expect(cost.byModel["music:generate"]?.calls).toBe(1);
    const outputs = (await readJson(runDir, "outputs.json")) as { jingle: Array<{ artifact: string }> };
    expect(outputs.jingle).toHaveLength(2);
  });

  it("fetches the clips of an earlier, killed `svc-flow music` with --clips, offline", {
    timeout: 120_000,
  }, async () => {
    const folder = await tempDir("svc-flow-clips-");
    const first = await cli(["music", "A lantern jingle", "--instrumental", "--out", "first"], folder, async (output) =>
      /clips \S+ \S+/.test(output),
    );
    expect(first.killed, first.output).toBe(true);
    const ids = /clips (\S+) (\S+)/.exec(first.output)!.slice(1, 3);
    const fetched = await cli(["music", "--clips", ids.join(","), "--out", "second"], folder);
    expect(fetched.code, fetched.output).toBe(0);
    expect(fetched.output).not.toMatch(/music:generate/);
    for (const id of ids) expect(fetched.output).toContain(id);
  });
});
