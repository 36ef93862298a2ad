import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { enqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunStore, type StoredResult } from "../src/workflow/distributed/run-store.js";
import { batchWorkflow, billedChats, startTestWorker, type TestWorker } from "./distributed-harness.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

const KEY = "sk-dist-item-error";
// Item 0's `v` is a number, so its second step fails (after a first call as slow as any other item's).
const TWO_STEPS = `version: 1
name: checked
inputs:
  row: { type: items }
steps:
  - id: name
    uses: chat
    with: { model: beta-4o-mini, prompt: "A name for number \${{ inputs.row.n }}", maxTokens: 8 }
  - id: line
    uses: chat
    with: { model: beta-4o-mini, prompt: "A line about \${{ steps.name.output.text }} in \${{ inputs.row.v.tone }}", maxTokens: 8 }
outputs:
  n: \${{ inputs.row.n }}
`;
const rowsOf = (count: number) =>
  Array.from({ length: count }, (_, n) => (n === 0 ? { n, v: 7 } : { n, v: { tone: "calm" } }));

let dir: string;
let redis: RedisServer;
let gateway: LocalGateway;
let store: RunStore;
let workers: TestWorker[] = [];

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-dist-item-error-"));
  redis = await startRedisServer(binary);
  gateway = await startLocalGateway({
    port: 0,
    config: { keys: [{ key: KEY, concurrency: 64 }], faults: { seed: 1, latencyMs: 400 } },
  });
  store = RunStore.connect(redis.url);
});
afterEach(async () => {
  for (const worker of workers) await worker.close();
  workers = [];
});
afterAll(async () => {
  await store?.close();
  await gateway?.close();
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

// One item at a time per worker: worker A takes item 0 and worker B item 1, and both are in flight when item 0 fails.
async function twoWorkers(): Promise<TestWorker[]> {
  workers = await Promise.all(
    [0, 1].map(() => startTestWorker(redis.url, gateway, KEY, { artifactsDir: join(dir, "shared"), concurrency: 1 })),
  );
  return workers;
}

describe.skipIf(binary === undefined)("onItemError across workers, over a real redis-server", () => {
  it("fail: after the failing item no worker starts another item; the item in flight finishes; the run fails with the item's error", async () => {
    const rows = rowsOf(12);
    const { workflow, items } = await batchWorkflow(dir, "fail", TWO_STEPS, rows);
    const [first, second] = await twoWorkers();
    const billedBefore = billedChats(gateway).length;
    const run = await enqueueRun(store, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "fail"),
      onItemError: "fail",
    });
    const result = await awaitRun(store, run.runId, { pollMs: 50 });

    expect(result).toMatchObject({ status: "failed", done: 1, failed: 1, total: rows.length });
    expect(result.error).toMatchObject({ index: 0 });
    expect(result.error?.message).toMatch(/has no property "tone"/);
    const stored: StoredResult[] = [];
    for await (const entry of store.results(run.runId)) stored.push(entry);
    // Item 1 was in flight: its second call started after the failure and still finished.
    expect(stored.map(({ index, state }) => ({ index, state }))).toEqual([
      { index: 0, state: "failed" },
      { index: 1, state: "done" },
    ]);
    // Item 0's first call and item 1's two calls; no other item sent anything.
    expect(billedChats(gateway).length - billedBefore).toBe(3);
    const outcomes = [...first!.outcomes, ...second!.outcomes];
    expect(
      outcomes
        .filter((item) => item.outcome === "ran")
        .map((item) => item.index)
        .sort(),
    ).toEqual([0, 1]);
    const journal = (await readFile(join(dir, "fail", "journal.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(journal.at(-1)).toMatchObject({
      type: "run-finished",
      status: "failed",
      error: { message: expect.stringMatching(/has no property "tone"/) },
    });
  }, 30_000);

  it.each(["collect", "skip"] as const)(
    "%s: a failed item is recorded and every other item still runs",
    async (onItemError) => {
      const rows = rowsOf(4);
      const { workflow, items } = await batchWorkflow(dir, onItemError, TWO_STEPS, rows);
      await twoWorkers();
      const run = await enqueueRun(store, workflow, {
        redisURL: redis.url,
        inputs: { row: items },
        outDir: join(dir, onItemError),
        onItemError,
      });
      const result = await awaitRun(store, run.runId, { pollMs: 50 });
      expect(result).toMatchObject({ status: "failed", done: rows.length - 1, failed: 1, total: rows.length });
      expect(result.error).toBeUndefined();
    },
    30_000,
  );
});
