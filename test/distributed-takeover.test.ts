import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { roundYuan } from "../src/catalog/prices.js";
import type { CostEntry } from "../src/cost/cost-entry.js";
import type { CostSummary } from "../src/cost/summarize-entries.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import type { GatewayConfigInput } from "../src/server/config.js";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { enqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunBudget } from "../src/workflow/distributed/run-budget.js";
import { RunStore } from "../src/workflow/distributed/run-store.js";
import type { JournalRecord } from "../src/workflow/run/journal-records.js";
import { batchWorkflow, SONG_WORKFLOW, startTestWorker, startWorkerProcess } from "./distributed-harness.js";
import { startGatewayCallWatch, type GatewayCallWatch } from "./gateway-call-watch.js";
import { startRedisCommandProxy } from "./redis-command-proxy.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

const KEY = "sk-dist-takeover";
const BUDGET = 10;
const LOCK_MS = 1000;
// Two billed calls in one step: the model asks for the calculator, then answers with its result.
const SUMS = `version: 1
name: sums
inputs:
  row: { type: items }
steps:
  - id: sum
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Use the calculator: what is \${{ inputs.row.n }} * 4?", tools: [calculator], maxTokens: 64 }
outputs:
  n: \${{ inputs.row.n }}
`;

// One billed call per row.
const LINES = `version: 1
name: lines
inputs:
  row: { type: items }
steps:
  - id: line
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line about the number \${{ inputs.row.n }}", maxTokens: 16 }
outputs:
  n: \${{ inputs.row.n }}
`;

let dir: string;
let redis: RedisServer;
const opened: { close(): Promise<void> }[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-dist-takeover-"));
  redis = await startRedisServer(binary);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function gatewayWith(config: Omit<GatewayConfigInput, "keys">): Promise<LocalGateway> {
  const gateway = await startLocalGateway({ port: 0, config: { keys: [{ key: KEY, concurrency: 64 }], ...config } });
  opened.push(gateway);
  return gateway;
}

// The worker's calls go through it, so a test acts the moment one reaches the gateway or is answered.
async function watchCalls(gateway: LocalGateway): Promise<GatewayCallWatch> {
  const watch = await startGatewayCallWatch(gateway);
  opened.push(watch);
  return watch;
}

function store(): RunStore {
  const created = RunStore.connect(redis.url);
  opened.push(created);
  return created;
}

async function deadWorker(gateway: Pick<LocalGateway, "baseURL">, redisURL = redis.url): Promise<ChildProcess> {
  const child = await startWorkerProcess(redisURL, gateway, KEY, {
    artifactsDir: join(dir, "shared"),
    lockMs: LOCK_MS,
  });
  children.push(child);
  // A test that fails before its kill must not leave the worker to take the next test's items.
  onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`);
    await sleep(10);
  }
}

const costsOf = (records: readonly JournalRecord[]) =>
  records.flatMap((record) => (record.type === "cost" ? [record.entry] : []));

/** Yuan by request id: what the gateway billed (net of refunds), and what cost.json counted. */
function byRequest(entries: readonly { requestId?: string; yuan?: number }[]): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const entry of entries)
    if (entry.requestId !== undefined)
      totals[entry.requestId] = roundYuan((totals[entry.requestId] ?? 0) + (entry.yuan ?? 0));
  return totals;
}

/** Every bill counted once, net of refunds: in Redis's spent, in cost.json's total, and request by request. */
async function expectCountedOnce(gateway: LocalGateway, runs: RunStore, runId: string, runDir: string): Promise<void> {
  const stats = gateway.stats();
  const bills = stats.keys
    .flatMap((key) => key.billed)
    .map((bill) => ({ requestId: bill.requestId, yuan: bill.refunded ? 0 : bill.yuan }));
  const cost = JSON.parse(await readFile(join(runDir, "cost.json"), "utf8")) as CostSummary & { calls: CostEntry[] };
  expect(byRequest(cost.calls)).toEqual(byRequest(bills));
  expect(cost.totalYuan).toBe(stats.billedYuan);
  expect(await new RunBudget(runs, runId).state()).toEqual({
    maxYuan: BUDGET,
    spentYuan: stats.billedYuan,
    heldYuan: 0,
  });
}

describe.skipIf(binary === undefined)("an item taken over from a worker that died", () => {
  it("counts once both a bill the dead worker journaled and one it was answered for but never journaled, when the gateway replays them", async () => {
    const gateway = await gatewayWith({
      faults: { seed: 1, latencyMs: 0, models: { "alpha-sonnet-4-6": { latencyMs: 500 } } },
    });
    const { workflow, items } = await batchWorkflow(dir, "sums", SUMS, [{ n: 12 }]);
    const runs = store();
    const watch = await watchCalls(gateway);
    const child = await deadWorker(watch);
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "sums"),
      budgetYuan: BUDGET,
    });
    const account = () => gateway.stats().keys[0]!;
    // The first call is billed and journaled; the worker is frozen as soon as the second reaches the
    // gateway, which bills it and answers a process that never reads it; then it is killed.
    await watch.sent(2);
    child.kill("SIGSTOP");
    await watch.answered(2);
    await kill(child);
    expect(account().billed).toHaveLength(2);
    const journaled = costsOf(await runs.itemRecords(run.runId, 0));
    expect(journaled.map((entry) => entry.requestId)).toEqual([account().billed[0]!.requestId]);
    expect((await new RunBudget(runs, run.runId).state())!.spentYuan).toBe(journaled[0]!.yuan);

    const finisher = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 1,
      lockMs: LOCK_MS,
    });
    onTestFinished(() => finisher.close());
    const result = await awaitRun(runs, run.runId, { pollMs: 50 });

    expect(result).toMatchObject({ status: "done", done: 1 });
    // Both calls were sent again and replayed by their idempotency keys: nothing was billed twice.
    expect(account().requests.replayed).toBe(2);
    expect(account().billed).toHaveLength(2);
    await expectCountedOnce(gateway, runs, run.runId, join(dir, "sums"));
  }, 60_000);

  it("takes a music call the dead worker paid for back off Redis's spent once, when the new execution sees its job fail", async () => {
    // The job fails well after the new execution has taken the item over (up to twice --lock-ms after
    // the kill): one found failed already would be refunded and submitted anew, as the next test shows.
    const gateway = await gatewayWith({ music: { completeAfterMs: 6000, failRate: 1, clipSeconds: 1 } });
    const { workflow, items } = await batchWorkflow(dir, "song", SONG_WORKFLOW, [{ n: 1 }]);
    const runs = store();
    // The worker reaches Redis through a proxy that says when it journals the music job.
    let jobJournaled!: () => void;
    const journaled = new Promise<void>((resolve) => (jobJournaled = resolve));
    const proxy = await startRedisCommandProxy(redis.url, (command) => {
      const [name, key, ...values] = command;
      if (name?.toUpperCase() === "RPUSH" && key?.includes(":journal:") === true) {
        const records = values.map((value) => JSON.parse(value) as JournalRecord);
        if (records.some((record) => record.type === "cost" && record.musicJob !== undefined)) jobJournaled();
      }
      return "forward";
    });
    opened.push(proxy);
    const child = await deadWorker(gateway, proxy.url);
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "song"),
      budgetYuan: BUDGET,
    });
    // Killed while it polls the job it paid for: the job's clip ids and its cost are journaled.
    await journaled;
    await kill(child);
    const music = () =>
      gateway
        .stats()
        .keys.flatMap((key) => key.billed)
        .filter((bill) => bill.kind === "music");
    expect(music()).toMatchObject([{ refunded: false, yuan: 2 }]);
    expect(costsOf(await runs.itemRecords(run.runId, 0)).filter((entry) => entry.kind === "music")).toMatchObject([
      { yuan: 2, requestId: music()[0]!.requestId },
    ]);

    const finisher = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 1,
      lockMs: LOCK_MS,
      music: { pollIntervalMs: 10 },
    });
    onTestFinished(() => finisher.close());
    const result = await awaitRun(runs, run.runId, { pollMs: 50 });

    expect(result).toMatchObject({ status: "failed", failed: 1 });
    // The new execution polled the dead worker's job rather than paying for another, and saw it refunded.
    expect(music()).toMatchObject([{ refunded: true }]);
    const cost = JSON.parse(await readFile(join(dir, "song", "cost.json"), "utf8")) as CostSummary;
    expect(cost.refunds).toBe(1);
    await expectCountedOnce(gateway, runs, run.runId, join(dir, "song"));
  }, 60_000);

  it("refunds once, then submits anew, a music job that failed after its worker died right behind the journaled bill", async () => {
    // Faults seed 10 with failRate 0.5: the first music job fails (refunded, its key forgotten), the second completes.
    const gateway = await gatewayWith({
      faults: { seed: 10 },
      music: { completeAfterMs: 1000, failRate: 0.5, clipSeconds: 1 },
    });
    const { workflow, items } = await batchWorkflow(dir, "song-cut", SONG_WORKFLOW, [{ n: 2 }]);
    const runs = store();
    let child: ChildProcess | undefined;
    let bill: string | undefined;
    let frozen!: () => void;
    const stopped = new Promise<void>((resolve) => (frozen = resolve));
    // The worker reaches Redis through a proxy that stops it (SIGSTOP) as it settles the music call's
    // bill on Redis's spent (the write after the bill's journal record), and lets none of its later
    // journal writes through: so it dies with the bill journaled and settled and nothing after it.
    const proxy = await startRedisCommandProxy(redis.url, (command) => {
      const [name, key, value] = command;
      if (name?.toUpperCase() === "RPUSH" && key?.includes(":journal:") === true) {
        if (bill !== undefined) return "drop";
        const record = JSON.parse(value ?? "{}") as JournalRecord;
        if (record.type === "cost" && record.entry.kind === "music" && record.entry.status === "ok")
          bill = record.entry.requestId;
      } else if (name?.toUpperCase() === "EVAL" && bill !== undefined && command.at(-1) === bill) {
        child?.kill("SIGSTOP");
        frozen();
      }
      return "forward";
    });
    opened.push(proxy);
    child = await deadWorker(gateway, proxy.url);
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "song-cut"),
      budgetYuan: BUDGET,
    });
    const music = () =>
      gateway
        .stats()
        .keys.flatMap((key) => key.billed)
        .filter((bill) => bill.kind === "music");
    await stopped;
    // The gateway's own clock fails the job (completeAfterMs after it was submitted) and refunds it.
    await until(() => music().some((bill) => bill.refunded), "the music job fails upstream and is refunded");
    await kill(child);
    const records = await runs.itemRecords(run.runId, 0);
    expect(records.at(-1)).toMatchObject({
      type: "cost",
      entry: { kind: "music", yuan: 2, requestId: music()[0]!.requestId },
    });
    const [chat] = costsOf(records).filter((entry) => entry.kind === "chat");
    expect((await new RunBudget(runs, run.runId).state())!.spentYuan).toBe(roundYuan(chat!.yuan! + 2));

    const finisher = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 1,
      lockMs: LOCK_MS,
      music: { pollIntervalMs: 10 },
    });
    onTestFinished(() => finisher.close());
    const result = await awaitRun(runs, run.runId, { pollMs: 50 });

    expect(result).toMatchObject({ status: "done", done: 1 });
    expect(music()).toMatchObject([{ refunded: true }, { refunded: false, yuan: 2 }]);
    const cost = JSON.parse(await readFile(join(dir, "song-cut", "cost.json"), "utf8")) as CostSummary;
    expect(cost.refunds).toBe(1);
    await expectCountedOnce(gateway, runs, run.runId, join(dir, "song-cut"));
  }, 60_000);

  it("lists in cost.json the call a worker was killed in, re-sent by the next, when the gateway ignores Idempotency-Key", async () => {
    const gateway = await gatewayWith({
      idempotency: false,
      faults: { seed: 1, latencyMs: 0, models: { "alpha-sonnet-4-6": { latencyMs: 500 } } },
    });
    const { workflow, items } = await batchWorkflow(dir, "lines", LINES, [{ n: 7 }]);
    const runs = store();
    const watch = await watchCalls(gateway);
    const child = await deadWorker(watch);
    const run = await enqueueRun(runs, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "lines"),
    });
    const account = () => gateway.stats().keys[0]!;
    // The worker is frozen as soon as its call reaches the gateway, which bills it and answers a
    // process that never reads it; it is then killed, its intent journaled and no bill.
    await watch.sent(1);
    child.kill("SIGSTOP");
    await watch.answered(1);
    await kill(child);
    expect(account().billed).toHaveLength(1);
    const before = await runs.itemRecords(run.runId, 0);
    expect(before.filter((record) => record.type === "call-intent")).toMatchObject([
      { key: "items[0].line", model: "alpha-sonnet-4-6", idempotencyKey: account().billed[0]!.idempotencyKey },
    ]);
    expect(costsOf(before)).toEqual([]);

    const finisher = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 1,
      lockMs: LOCK_MS,
    });
    onTestFinished(() => finisher.close());
    const result = await awaitRun(runs, run.runId, { pollMs: 50 });

    expect(result).toMatchObject({ status: "done", done: 1 });
    const [lost, counted] = account().billed;
    expect(counted!.idempotencyKey).toBe(lost!.idempotencyKey);
    const cost = JSON.parse(await readFile(join(dir, "lines", "cost.json"), "utf8")) as CostSummary & {
      possibleDoubleBills: {
        totalYuan: number;
        calls: { idempotencyKey: string; requestId?: string; yuan?: number }[];
      };
      calls: CostEntry[];
    };
    const expected = {
      totalYuan: counted!.yuan,
      calls: [
        {
          step: "items[0].line",
          model: "alpha-sonnet-4-6",
          idempotencyKey: counted!.idempotencyKey,
          requestId: counted!.requestId,
          yuan: counted!.yuan,
        },
      ],
    };
    expect(cost.possibleDoubleBills).toEqual(expected);
    expect(result.possibleDoubleBills).toEqual(expected);
    // The call counted once, plus what may have been paid twice, is what the gateway billed.
    expect(cost.totalYuan + cost.possibleDoubleBills.totalYuan).toBeCloseTo(gateway.stats().billedYuan, 6);
    expect(cost.calls.map((call) => call.requestId)).toEqual([counted!.requestId]);
    expect(await readdir(join(dir, "lines"))).not.toContain(".cost-calls.jsonl");
  }, 60_000);
});
