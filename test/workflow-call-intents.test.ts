// The intent/bill rule: a call's intent (its Idempotency-Key) is journaled before it is sent and its bill after,
// so a resume knows which calls were lost in flight, and cost.json names the ones a gateway that ignores the key
// may have billed twice. Checked against the local gateway acting as such a relay (idempotency: false).
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalGateway, type GatewayConfigInput, type LocalGateway } from "../src/server/index.js";
import { parseWorkflow, readJournal, runWorkflow } from "../src/workflow/index.js";
import type { PossibleDoubleBills } from "../src/workflow/run/call-intents.js";
import { billedOf, startCuttingProxy } from "./idempotency-harness.js";
import { readJson, recordsOf, tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const ITEMS = 8;
const FLOW = `version: 1
defaults: { model: alpha-sonnet-4-6, maxTokens: 32 }
steps:
  - id: lines
    map: [${Array.from({ length: ITEMS }, (_, index) => index).join(", ")}]
    as: n
    concurrency: 2
    steps:
      - id: line
        uses: chat
        with: { prompt: "One line about lantern \${{ n }}." }
`;

interface CostFile {
  readonly totalYuan: number;
  readonly possibleDoubleBills: PossibleDoubleBills;
}

async function withGateway<T>(config: GatewayConfigInput, task: (gateway: LocalGateway) => Promise<T>): Promise<T> {
  const gateway = await startLocalGateway({ config });
  try {
    return await task(gateway);
  } finally {
    await gateway.close();
  }
}

/** The idempotency keys the gateway billed more than once, with what the extra bills cost. */
function billedTwice(gateway: LocalGateway): { keys: string[]; extraYuan: number } {
  const seen = new Set<string>();
  const keys: string[] = [];
  let extraYuan = 0;
  for (const entry of billedOf(gateway)) {
    const key = entry.idempotencyKey ?? "";
    if (seen.has(key)) {
      keys.push(key);
      extraYuan += entry.yuan;
    }
    seen.add(key);
  }
  return { keys: keys.sort(), extraYuan };
}

function cli(gateway: LocalGateway, argv: string[]) {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    exited: new Promise<{ code: number | null; output: string }>((resolve) =>
      child.once("exit", (code) => resolve({ code, output })),
    ),
    kill: () => child.kill("SIGKILL"),
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("call intents and bills", () => {
  it("lists exactly the calls a gateway ignoring Idempotency-Key billed twice after a kill -9 and resume", {
    timeout: 120_000,
  }, async () => {
    // A relay that ignores the key and bills a call whose client left: the calls in flight at the kill are
    // billed, and billed again when the resume sends them.
    const config = { idempotency: false, billAfterDisconnect: true, faults: { seed: 1, latencyMs: 1500, models: {} } };
    await withGateway(config, async (gateway) => {
      const folder = await tempDir("svc-flow-intent-");
      const file = path.join(folder, "flow.yaml");
      const runDir = path.join(folder, "run");
      await writeFile(file, FLOW);
      const run = cli(gateway, ["run", file, "--out", runDir]);
      // Two calls billed, and the next two (the map's whole concurrency) at the gateway: killed mid-call.
      await until(() => billedOf(gateway).length >= 2 && gateway.stats().keys[0]?.inFlight === 2);
      run.kill();
      await run.exited;

      const resumed = await cli(gateway, ["resume", runDir]).exited;
      expect(resumed.code, resumed.output).toBe(0);
      const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
      const intents = recordsOf(records, "call-intent");
      expect(intents.length).toBeGreaterThanOrEqual(ITEMS + 2);
      expect(intents[0]).toMatchObject({ key: "lines[0].line", model: "alpha-sonnet-4-6" });
      expect(intents[0]!.holdYuan).toBeGreaterThan(0);

      const cost = (await readJson(runDir, "cost.json")) as CostFile;
      const twice = billedTwice(gateway);
      expect(twice.keys.length).toBeGreaterThanOrEqual(2);
      expect(cost.possibleDoubleBills.calls.map((call) => call.idempotencyKey).sort()).toEqual(twice.keys);
      expect(cost.possibleDoubleBills.totalYuan).toBeCloseTo(twice.extraYuan, 6);
      // Each call counted once, plus what was paid twice, is what the gateway billed.
      expect(cost.totalYuan + cost.possibleDoubleBills.totalYuan).toBeCloseTo(gateway.stats().billedYuan, 6);
      expect(resumed.output).toMatch(/may have been billed twice/);
    });
  });

  it("marks a call retried after its answer was lost as a possible double bill when the gateway ignores the key", async () => {
    await withGateway({ idempotency: false }, async (gateway) => {
      const proxy = await startCuttingProxy(gateway);
      try {
        const outDir = path.join(await tempDir("svc-flow-intent-"), "run");
        const workflow = parseWorkflow(FLOW.replace(/map: \[.*\]/, "map: [1]"), { fileName: "flow.yaml" });
        proxy.cutNext(1);
        const result = await runWorkflow(workflow, {
          gateway: { baseURL: proxy.baseURL, apiKey: "sk-local-demo" },
          outDir,
          notice: () => undefined,
        });
        expect(result.status).toBe("done");
        expect(billedOf(gateway)).toHaveLength(2);
        const cost = (await readJson(outDir, "cost.json")) as CostFile;
        expect(cost.possibleDoubleBills.calls).toEqual([
          expect.objectContaining({
            step: "lines[0].line",
            model: "alpha-sonnet-4-6",
            yuan: billedOf(gateway)[1]!.yuan,
          }),
        ]);
        expect(result.possibleDoubleBills?.totalYuan).toBeCloseTo(billedOf(gateway)[1]!.yuan, 6);
      } finally {
        await proxy.close();
      }
    });
  });

  it("lists nothing when the gateway honours the key: the retried call is replayed and billed once", async () => {
    await withGateway({}, async (gateway) => {
      const proxy = await startCuttingProxy(gateway);
      try {
        const outDir = path.join(await tempDir("svc-flow-intent-"), "run");
        const workflow = parseWorkflow(FLOW.replace(/map: \[.*\]/, "map: [1]"), { fileName: "flow.yaml" });
        proxy.cutNext(1);
        const result = await runWorkflow(workflow, {
          gateway: { baseURL: proxy.baseURL, apiKey: "sk-local-demo" },
          outDir,
          notice: () => undefined,
        });
        expect(result.status).toBe("done");
        expect(billedOf(gateway)).toHaveLength(1);
        const cost = (await readJson(outDir, "cost.json")) as CostFile;
        expect(cost.possibleDoubleBills).toEqual({ totalYuan: 0, calls: [] });
        expect(cost.totalYuan).toBeCloseTo(gateway.stats().billedYuan, 6);
        expect(result.possibleDoubleBills).toBeUndefined();
      } finally {
        await proxy.close();
      }
    });
  });
});
