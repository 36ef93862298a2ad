// Kill -9 a real `svc-flow run` process several times mid-run, resume each time, and check that the
// run ends complete, with every item once, and that the gateway billed each distinct call once:
// calls billed but not yet journaled when the process died are replayed (Idempotency-Key), not repaid.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { readJournal } from "../src/workflow/index.js";
import { describeRun } from "../src/workflow/schedule/list-runs.js";
import { readJson, recordsOf, tempDir } from "./workflow-harness.js";

const ITEMS = 20;
const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const FLOW = `version: 1
budget: { maxYuan: 10 }
defaults: { model: alpha-sonnet-4-6, maxTokens: 64 }
steps:
  - id: lines
    map: [${Array.from({ length: ITEMS }, (_, index) => index).join(", ")}]
    as: n
    concurrency: 3
    steps:
      - id: line
        uses: chat
        with: { prompt: "One line about lantern number \${{ n }}." }
    output:
      n: \${{ n }}
      text: \${{ steps.line.output.text }}
  - id: poster
    uses: image
    with: { prompt: "A poster of lanterns" }
  - id: jingle
    uses: music
    with: { prompt: "A lantern jingle", instrumental: true }
outputs:
  lines: \${{ steps.lines.output }}
  poster: \${{ steps.poster.output }}
  jingle: \${{ steps.jingle.output.clips }}
`;

let gateway: LocalGateway;
beforeAll(async () => {
  gateway = await startLocalGateway({
    config: { faults: { seed: 1, latencyMs: 250, models: {} }, music: { completeAfterMs: 1500 } },
  });
});
afterAll(async () => gateway?.close());

function billedCount(): number {
  return gateway.stats().keys[0]?.billed.length ?? 0;
}

/**
 * Runs the CLI in a child process. With `killAt`, SIGKILLs it the moment the gateway has billed that
 * many calls: the reply is on its way but most likely not journaled yet, the window resume must not repay.
 */
async function cli(argv: string[], killAt?: number): Promise<{ killed: boolean; code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let finished = false;
  void exited.then(() => (finished = true));
  if (killAt !== undefined) {
    while (!finished) {
      if (billedCount() >= killAt) {
        child.kill("SIGKILL");
        await exited;
        return { killed: true, code: null, output };
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const code = await exited;
  return { killed: false, code, output };
}

describe("kill -9 and resume of a real process", () => {
  it("ends complete, every item once, each distinct call billed exactly once", { timeout: 240_000 }, async () => {
    const folder = await tempDir("svc-flow-kill-");
    const file = path.join(folder, "flow.yaml");
    const runDir = path.join(folder, "run");
    await writeFile(file, FLOW);

    // Kills land after the 3rd, 8th, 13th and 19th billed call: mid-map, and around the image and music.
    const kills: number[] = [];
    for (const [index, killAt] of [3, 8, 13, 19].entries()) {
      const attempt = await cli(index === 0 ? ["run", file, "--out", runDir] : ["resume", runDir], killAt);
      if (!attempt.killed) break;
      kills.push(killAt);
      // The journal names the killed process, so a listing shows the run as interrupted, not running.
      expect((await describeRun(runDir))?.state).toBe("interrupted");
    }
    const last = await cli(["resume", runDir]);
    expect(last.output).toContain("Done.");
    expect(last.code).toBe(0);
    expect(kills.length).toBeGreaterThanOrEqual(3);

    const outputs = (await readJson(runDir, "outputs.json")) as {
      lines: Array<{ n: number; text: string }>;
      poster: { artifact: string };
      jingle: Array<{ artifact: string }>;
    };
    expect(outputs.lines.map((line) => line.n)).toEqual(Array.from({ length: ITEMS }, (_, index) => index));
    expect(outputs.lines.every((line) => typeof line.text === "string" && line.text.length > 0)).toBe(true);
    expect(outputs.poster.artifact).toMatch(/^artifacts\//);
    expect(outputs.jingle.length).toBeGreaterThan(0);

    const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
    expect(recordsOf(records, "run-resumed").length).toBeGreaterThanOrEqual(kills.length);
    const itemKeys = recordsOf(records, "item-finished").map((record) => `${record.key}[${record.index}]`);
    expect(new Set(itemKeys).size).toBe(itemKeys.length);
    expect(itemKeys).toHaveLength(ITEMS);

    // The gateway's own billing: 20 chat lines, one image, one music job, whatever the kills did.
    const billed = gateway.stats().keys[0]!.billed;
    expect(billed.filter((entry) => entry.kind === "chat" && entry.model === "alpha-sonnet-4-6")).toHaveLength(ITEMS);
    expect(billed.filter((entry) => entry.kind === "chat" && entry.model === "gamma-2.5-flash-image")).toHaveLength(1);
    expect(billed.filter((entry) => entry.kind === "music")).toHaveLength(1);
    // Kills land right after a call is billed, so some calls were billed but not journaled: resume
    // sent them again under the same Idempotency-Key, and the gateway answered from its store.
    expect(gateway.stats().keys[0]!.requests.replayed).toBeGreaterThan(0);
    const cost = (await readJson(runDir, "cost.json")) as { totalYuan: number };
    expect(cost.totalYuan).toBeCloseTo(gateway.stats().billedYuan, 6);
  });
});
