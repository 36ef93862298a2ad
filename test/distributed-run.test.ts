import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { enqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunStore, type StoredResult } from "../src/workflow/distributed/run-store.js";
import { rateWindow } from "../src/workflow/distributed/start-item-worker.js";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { main } from "../src/cli/main.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");
if (binary === undefined)
  console.warn("Skipping the distributed tests: redis-server is not installed (apt-get install redis-server).");

const ITEMS = 500;
const RPM = 3000;
const KEY = "sk-dist-test";

let dir: string;
let redis: RedisServer;
let gateway: LocalGateway;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-distributed-"));
  redis = await startRedisServer(binary);
  gateway = await startLocalGateway({
    port: 0,
    config: { keys: [{ key: KEY, rpm: RPM, concurrency: 64 }], faults: { seed: 1, latencyMs: 20 } },
  });
});
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
  await gateway?.close();
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function startWorker(name: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "worker",
      "--redis",
      redis.url,
      "--artifacts",
      join(dir, "shared"),
      "--concurrency",
      "8",
      "--rpm",
      String(RPM),
      "--lock-ms",
      "2000",
    ],
    {
      env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: KEY },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  workers.push(child);
  while (!log.includes("svc-flow worker ready")) {
    if (child.exitCode !== null) throw new Error(`Worker ${name} exited: ${log}`);
    await sleep(50);
  }
  return child;
}

describe.skipIf(binary === undefined)("distributed runs on BullMQ over a real redis-server", () => {
  it("two workers share a 500-item run; one is killed mid-run; every item is done and billed once, with no 429", async () => {
    const rows = Array.from({ length: ITEMS }, (_, n) => JSON.stringify({ n })).join("\n");
    await writeFile(join(dir, "rows.jsonl"), `${rows}\n`);
    const workflow = parseWorkflow(
      `version: 1
name: numbered
inputs:
  row: { type: items, default: rows.jsonl }
steps:
  - id: line
    uses: chat
    with: { model: beta-4o-mini, prompt: "A line about number \${{ inputs.row.n }}", maxTokens: 8 }
outputs:
  n: \${{ inputs.row.n }}
  text: \${{ steps.line.output.text }}
`,
      { fileName: join(dir, "numbered.yaml"), baseDir: dir },
    );
    const [first] = await Promise.all([startWorker("a"), startWorker("b")]);
    const store = RunStore.connect(redis.url);
    try {
      const run = await enqueueRun(store, workflow, { redisURL: redis.url, outDir: join(dir, "run") });
      expect(run.total).toBe(ITEMS);
      // Killed with items in flight: their jobs stall, and the other worker runs them again.
      while ((await store.counts(run.runId, ITEMS)).done < ITEMS / 4) await sleep(50);
      first.kill("SIGKILL");
      await once(first, "exit");
      const result = await awaitRun(store, run.runId, { pollMs: 100 });
      expect(result).toMatchObject({ status: "done", total: ITEMS, done: ITEMS, failed: 0 });
      const lines = (await readFile(join(dir, "run", "outputs.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as StoredResult);
      expect(lines.map((line) => line.index)).toEqual(Array.from({ length: ITEMS }, (_, index) => index));
      expect(lines.every((line) => line.state === "done" && (line.output as { n: number }).n === line.index)).toBe(
        true,
      );
      const stats = gateway.stats().keys.find((key) => key.billed.length > 0)!;
      // Every item was paid exactly once: a re-run after the kill was replayed by its idempotency key.
      expect(stats.billed.filter((entry) => entry.kind === "chat")).toHaveLength(ITEMS);
      expect(stats.requests.rateLimited).toBe(0);
      const journal = (await readFile(join(dir, "run", "journal.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string });
      expect(journal.filter((record) => record.type === "item-finished")).toHaveLength(ITEMS);
      expect(journal.at(-1)).toMatchObject({ type: "run-finished", status: "done" });
    } finally {
      await store.close();
    }
  }, 90_000);

  it("runs detached from one directory and is finished by resume (by run id) into another, as from a second machine", async () => {
    await writeFile(
      join(dir, "few.jsonl"),
      `${Array.from({ length: 20 }, (_, n) => JSON.stringify({ n })).join("\n")}\n`,
    );
    await writeFile(
      join(dir, "few.yaml"),
      'version: 1\nname: few\ninputs:\n  row: { type: items }\nsteps:\n  - id: line\n    uses: chat\n    with: { model: beta-4o-mini, prompt: "Number ${{ inputs.row.n }}", maxTokens: 8 }\noutputs:\n  n: ${{ inputs.row.n }}\n',
    );
    const cli = async (argv: string[]) => {
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
    };
    const enqueued = await cli([
      "run",
      "few.yaml",
      "--input",
      "row=few.jsonl",
      "--redis",
      redis.url,
      "--out",
      "first",
      "--detach",
    ]);
    expect(enqueued.code).toBe(0);
    const runId = /Run ([0-9a-f-]+): 20 item/.exec(enqueued.out)?.[1];
    expect(runId).toBeDefined();
    await startWorker("c");
    const resumed = await cli(["resume", runId!, "--redis", redis.url, "--out", "second"]);
    expect(resumed.code).toBe(0);
    const lines = (await readFile(join(dir, "second", "outputs.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as StoredResult);
    expect(lines.map((line) => (line.output as { n: number }).n)).toEqual(
      Array.from({ length: 20 }, (_, index) => index),
    );
  }, 60_000);

  it.each([
    [3000, { max: 49, durationMs: 1000 }],
    [61, { max: 1, durationMs: 1000 }],
    [30, { max: 1, durationMs: 2034 }],
  ])("keeps %i items a minute under the limit in any sliding minute", (perMinute, window) => {
    expect(rateWindow(perMinute)).toEqual(window);
    // A 60 s interval meets at most 61 fixed windows (60_000 / durationMs + 1).
    expect((Math.floor(60_000 / window.durationMs) + 1) * window.max).toBeLessThanOrEqual(perMinute);
  });
});
