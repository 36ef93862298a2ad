import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { roundYuan } from "../src/catalog/prices.js";
import type { HoldAnswer } from "../src/cost/budget-account.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { main } from "../src/cli/main.js";
import { enqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunBudget } from "../src/workflow/distributed/run-budget.js";
import { RunStore, type StoredResult } from "../src/workflow/distributed/run-store.js";
import { batchWorkflow, billedChats, startTestWorker } from "./distributed-harness.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

const KEY = "sk-dist-budget";
// Two priced calls per item; the second one's reservation (40 output tokens) is most of the item's bound.
const TWO_STEPS = `version: 1
name: priced
inputs:
  row: { type: items }
steps:
  - id: name
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "A name for number \${{ inputs.row.n }}", maxTokens: 8 }
  - id: line
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "A line about \${{ steps.name.output.text }}", maxTokens: 40 }
outputs:
  n: \${{ inputs.row.n }}
`;

let dir: string;
let redis: RedisServer;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-dist-budget-"));
  redis = await startRedisServer(binary);
});
afterAll(async () => {
  for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function store(): RunStore {
  const created = RunStore.connect(redis.url);
  opened.push(created);
  return created;
}

async function gatewayWith(latencyMs: number): Promise<LocalGateway> {
  const gateway = await startLocalGateway({
    port: 0,
    config: { keys: [{ key: KEY, concurrency: 64 }], faults: { seed: 1, latencyMs } },
  });
  opened.push(gateway);
  return gateway;
}

async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const sink = { write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WritableStream;
  const code = await main(argv, {
    stdout: sink as never,
    stderr: sink as never,
    env: process.env,
    cwd: dir,
    signal: new AbortController().signal,
  });
  return { code, out };
}

const sumYuan = (values: readonly number[]) => values.reduce((sum, value) => roundYuan(sum + value), 0);

describe.skipIf(binary === undefined)("a distributed run's budget, shared through a real redis-server", () => {
  it("two workers never spend past the run's budget together; the run stops, and resume with a higher budget finishes it without paying twice", async () => {
    const gateway = await gatewayWith(40);
    const rows = Array.from({ length: 24 }, (_, n) => ({ n }));
    const { workflow, items } = await batchWorkflow(dir, "priced", TWO_STEPS, rows);
    // A short lock: BullMQ's stalled-job check then runs often enough for the kill test after this one.
    const workers = [0, 1].map(() =>
      startTestWorker(redis.url, gateway, KEY, { artifactsDir: join(dir, "shared"), concurrency: 3, lockMs: 3000 }),
    );
    const [first, second] = await Promise.all(workers);
    onTestFinished(async () => {
      await first!.close();
      await second!.close();
    });
    const runs = store();
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "priced"),
      budgetYuan: 0.05,
    });
    const stopped = await awaitRun(runs, run.runId, { pollMs: 50 });

    expect(stopped).toMatchObject({ status: "stopped", reason: "budget", failed: 0 });
    expect(stopped.done).toBeGreaterThan(0);
    expect(stopped.done).toBeLessThan(rows.length);
    expect(stopped.error?.message).toMatch(/Budget exceeded/);
    // Both workers ran items, so the cap held across processes' connections, not within one worker.
    expect(first!.outcomes.some((item) => item.outcome === "ran")).toBe(true);
    expect(second!.outcomes.some((item) => item.outcome === "ran")).toBe(true);
    const billedAtStop = sumYuan(billedChats(gateway).map((entry) => entry.yuan));
    // Some item had paid its first call when its second was refused: resume must not pay that one again.
    expect(billedChats(gateway).length).toBeGreaterThan(stopped.done * 2);
    expect(billedAtStop).toBeLessThanOrEqual(0.05);
    const budget = new RunBudget(runs, run.runId);
    // Every bill reached the shared budget, and no hold was left behind.
    expect(await budget.state()).toEqual({ maxYuan: 0.05, spentYuan: billedAtStop, heldYuan: 0 });
    const journal = (await readFile(join(dir, "priced", "journal.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(journal.at(-1)).toMatchObject({ type: "run-finished", status: "stopped", reason: "budget" });

    // The CLI's resume raises the cap for every worker.
    const resumed = await cli(["resume", run.runId, "--redis", redis.url, "--budget", "1", "--out", "priced-resumed"]);
    expect(resumed.out).toContain(`Run ${run.runId}: ${rows.length - stopped.done} item(s) back on the queue.`);
    expect(resumed.out).toContain(`Done. ${rows.length} item(s).`);
    expect(resumed.code).toBe(0);
    // Each item's two calls were billed once: steps finished before the stop were replayed from the journal.
    const billed = billedChats(gateway);
    expect(billed).toHaveLength(rows.length * 2);
    const total = sumYuan(billed.map((entry) => entry.yuan));
    expect(await budget.state()).toEqual({ maxYuan: 1, spentYuan: total, heldYuan: 0 });
    const cost = JSON.parse(await readFile(join(dir, "priced-resumed", "cost.json"), "utf8")) as { totalYuan: number };
    expect(cost.totalYuan).toBeCloseTo(total, 8);
    const lines = (await readFile(join(dir, "priced-resumed", "outputs.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as StoredResult);
    expect(lines.map((line) => (line.output as { n: number }).n)).toEqual(rows.map((row) => row.n));
  }, 60_000);

  it("grants parallel holds from two connections only while they fit under the cap", async () => {
    const [left, right] = [store(), store()];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 200 }).map((cents) => cents / 100),
        fc.array(
          fc.integer({ min: 1, max: 4000 }).map((units) => units / 10_000),
          { minLength: 2, maxLength: 60 },
        ),
        async (maxYuan, amounts) => {
          const runId = `race-${randomUUID()}`;
          await new RunBudget(left, runId).setMax(maxYuan);
          // Four items, two on each connection, as two workers would hold them.
          const items = await Promise.all(
            [0, 1, 2, 3].map((index) => new RunBudget(index % 2 === 0 ? left : right, runId).open(index, randomUUID())),
          );
          const answers: HoldAnswer[] = await Promise.all(amounts.map((yuan, n) => items[n % 4]!.hold(yuan)));
          const granted = amounts.filter((_, n) => "hold" in answers[n]!);
          const state = (await new RunBudget(left, runId).state())!;
          expect(state.heldYuan).toBe(sumYuan(granted));
          expect(state.heldYuan).toBeLessThanOrEqual(maxYuan);
          // Nothing was released during the race, so whatever was refused still does not fit.
          for (const [n, answer] of answers.entries())
            if ("refused" in answer) expect(roundYuan(state.heldYuan + amounts[n]!)).toBeGreaterThan(maxYuan);
          for (const item of items) await item!.close();
          expect((await new RunBudget(left, runId).state())!.heldYuan).toBe(0);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("keeps a dead worker's holds counted until its item runs again, then releases what that run did not use", async () => {
    const runId = `dead-${randomUUID()}`;
    const dying = RunStore.connect(redis.url);
    const living = store();
    const budget = new RunBudget(living, runId);
    await budget.setMax(1);
    const dead = await new RunBudget(dying, runId).open(0, "worker-a-execution");
    expect("hold" in (await dead!.hold(0.4))).toBe(true);
    expect("hold" in (await dead!.hold(0.2))).toBe(true);
    // The worker dies holding 0.6 yuan: no settle, no close.
    dying.redis.disconnect();
    const other = await budget.open(1, randomUUID());
    expect(await other!.hold(0.5)).toMatchObject({
      refused: { maxYuan: 1, spentYuan: 0, heldYuan: 0.6, stopped: false },
    });
    // Item 0 runs again: its calls draw on what the dead execution held, past the cap if need be.
    const rerun = await budget.open(0, randomUUID());
    const replayed = await rerun!.hold(0.4);
    if (!("hold" in replayed)) throw new Error("The re-run's first call was refused.");
    replayed.hold.settle(0.15);
    await rerun!.close();
    await other!.close();
    expect(await budget.state()).toEqual({ maxYuan: 1, spentYuan: 0.15, heldYuan: 0 });
  });

  it("releases the holds of a worker killed with calls in flight once its items run elsewhere, and counts every bill", async () => {
    const gateway = await gatewayWith(1500);
    const rows = Array.from({ length: 6 }, (_, n) => ({ n }));
    const { workflow, items } = await batchWorkflow(dir, "killed", TWO_STEPS, rows);
    const child: ChildProcess = spawn(
      process.execPath,
      [
        BIN,
        "worker",
        "--redis",
        redis.url,
        "--artifacts",
        join(dir, "shared"),
        "--concurrency",
        "6",
        "--lock-ms",
        "1500",
      ],
      {
        env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: KEY },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let log = "";
    child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    opened.push({ close: async () => void child.kill("SIGKILL") });
    while (!log.includes("svc-flow worker ready")) {
      if (child.exitCode !== null) throw new Error(`The worker exited: ${log}`);
      await sleep(50);
    }
    const runs = store();
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "killed"),
      budgetYuan: 1,
    });
    const budget = new RunBudget(runs, run.runId);
    while (((await budget.state())?.heldYuan ?? 0) === 0) await sleep(20);
    child.kill("SIGKILL");
    await once(child, "exit");
    const heldByTheDead = (await budget.state())!.heldYuan;
    expect(heldByTheDead).toBeGreaterThan(0);
    await sleep(300);
    expect((await budget.state())!.heldYuan).toBe(heldByTheDead);

    opened.push(
      await startTestWorker(redis.url, gateway, KEY, {
        artifactsDir: join(dir, "shared"),
        concurrency: 6,
        lockMs: 1500,
      }),
    );
    const result = await awaitRun(runs, run.runId, { pollMs: 100 });
    expect(result).toMatchObject({ status: "done", done: rows.length });
    const state = (await budget.state())!;
    expect(state.heldYuan).toBe(0);
    // A call the dead worker had in flight is counted when its item runs again (replayed or sent anew), never lost.
    expect(state.spentYuan).toBeGreaterThanOrEqual(sumYuan(billedChats(gateway).map((entry) => entry.yuan)));
    expect(state.spentYuan).toBeLessThanOrEqual(1);
  }, 60_000);
});
