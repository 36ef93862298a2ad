import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { CostSummary } from "../src/cost/summarize-entries.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { enqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunBudget } from "../src/workflow/distributed/run-budget.js";
import { RunStore, type StoredResult } from "../src/workflow/distributed/run-store.js";
import { batchWorkflow, SONG_WORKFLOW, startTestWorker } from "./distributed-harness.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

const KEY = "sk-dist-music";

let dir: string;
let redis: RedisServer;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-dist-music-"));
  redis = await startRedisServer(binary);
});
afterAll(async () => {
  for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function gatewayWith(music: { completeAfterMs: number; failRate: number }): Promise<LocalGateway> {
  const gateway = await startLocalGateway({
    port: 0,
    config: { keys: [{ key: KEY, concurrency: 64 }], music: { ...music, clipSeconds: 1 } },
  });
  opened.push(gateway);
  return gateway;
}

function store(): RunStore {
  const created = RunStore.connect(redis.url);
  opened.push(created);
  return created;
}

describe.skipIf(binary === undefined)("music items of a distributed run", () => {
  it("returns a refunded music call to the shared budget: Redis's spent is what the gateway billed net of refunds", async () => {
    const gateway = await gatewayWith({ completeAfterMs: 40, failRate: 0.5 });
    const rows = Array.from({ length: 8 }, (_, n) => ({ n }));
    const { workflow, items } = await batchWorkflow(dir, "songs", SONG_WORKFLOW, rows);
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 4,
      music: { pollIntervalMs: 10 },
    });
    onTestFinished(() => worker.close());
    const runs = store();
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "songs"),
      budgetYuan: 40,
    });
    const result = await awaitRun(runs, run.runId, { pollMs: 50 });

    const music = gateway
      .stats()
      .keys.flatMap((key) => key.billed)
      .filter((entry) => entry.kind === "music");
    const refunded = music.filter((entry) => entry.refunded).length;
    // Both kinds happened: some jobs failed and were refunded, others were kept and paid.
    expect(refunded).toBeGreaterThan(0);
    expect(refunded).toBeLessThan(rows.length);
    expect(music).toHaveLength(rows.length);
    expect(result).toMatchObject({ status: "failed", done: rows.length - refunded, failed: refunded });
    const net = gateway.stats().billedYuan;
    expect(await new RunBudget(runs, run.runId).state()).toEqual({ maxYuan: 40, spentYuan: net, heldYuan: 0 });
    const cost = JSON.parse(await readFile(join(dir, "songs", "cost.json"), "utf8")) as CostSummary;
    expect(cost).toMatchObject({ refunds: refunded, totalYuan: net });
    const lines = (await readFile(join(dir, "songs", "outputs.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as StoredResult);
    expect(lines.filter((line) => line.state === "failed").every((line) => line.error?.code === "music_failed")).toBe(
      true,
    );
  }, 60_000);

  it("polls music jobs as the worker's `music` option says, as a one-machine run does", async () => {
    // Clips that never finish: the item ends when the worker's timeout says, not after the client's default five minutes.
    const gateway = await gatewayWith({ completeAfterMs: 600_000, failRate: 0 });
    const { workflow, items } = await batchWorkflow(dir, "slow-song", SONG_WORKFLOW, [{ n: 1 }]);
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 1,
      music: { pollIntervalMs: 10, timeoutMs: 400 },
    });
    onTestFinished(() => worker.close());
    const runs = store();
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "slow-song"),
    });
    // Stops waiting (the result is then "stopped") well before the default timeout would end the item.
    const result = await awaitRun(runs, run.runId, { pollMs: 50, signal: AbortSignal.timeout(15_000) });

    expect(result).toMatchObject({ status: "failed", failed: 1 });
    const [line] = (await readFile(join(dir, "slow-song", "outputs.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text) as StoredResult);
    expect(line?.error?.message).toMatch(/had no audio after 400 ms/);
    // The first wait was 10 ms (growing by half), not the default 2 s: the clips were polled several
    // times (counted requests: the chat call, the submission, the polls; audio downloads are not counted).
    const [key] = gateway.stats().keys;
    expect(key!.requests.total - 2).toBeGreaterThanOrEqual(4);
  }, 30_000);

  it("gives the worker's first poll interval to compose_music in a tool step too", async () => {
    const gateway = await gatewayWith({ completeAfterMs: 400, failRate: 0 });
    const composed = `version: 1
name: composed
inputs:
  row: { type: items }
steps:
  - id: jingle
    uses: tool
    with: { tool: compose_music, input: { prompt: "A jingle for \${{ inputs.row.n }}", instrumental: true } }
outputs:
  n: \${{ inputs.row.n }}
`;
    const { workflow, items } = await batchWorkflow(dir, "composed", composed, [{ n: 1 }]);
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 1,
      music: { pollIntervalMs: 10 },
    });
    onTestFinished(() => worker.close());
    const runs = store();
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "composed"),
    });
    const result = await awaitRun(runs, run.runId, { pollMs: 50 });

    expect(result).toMatchObject({ status: "done", done: 1 });
    // With the default first wait of 2 s there would be one poll: the clips complete after 400 ms.
    const [key] = gateway.stats().keys;
    expect(key!.requests.total - 1).toBeGreaterThanOrEqual(4);
  }, 30_000);
});
