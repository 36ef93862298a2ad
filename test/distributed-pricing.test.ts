import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { roundYuan, tokenCost } from "../src/catalog/prices.js";
import type { CostEntry } from "../src/cost/cost-entry.js";
import type { CostSummary } from "../src/cost/summarize-entries.js";
import { main } from "../src/cli/main.js";
import { ConfigError } from "../src/errors.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { enqueueRun, reenqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunBudget } from "../src/workflow/distributed/run-budget.js";
import { RunPricing } from "../src/workflow/distributed/run-pricing.js";
import { RunStore } from "../src/workflow/distributed/run-store.js";
import { batchWorkflow, startTestWorker } from "./distributed-harness.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

// beta-4o-mini has no published price. The gateway bills it at FILE_PRICE; the price file says the same.
const FILE_PRICE = { input: 0.5, output: 2 };
const OTHER_PRICE = { input: 1, output: 4 };
const PROCESS_KEY = "sk-dist-prices-process";
const KEY = "sk-dist-prices";
const ROWS = 6;
// The model is an input, so the loader cannot refuse it under a budget: what the runs do at its
// first call (refuse it, resumably, unless priced or allowed) is what these tests are about.
const WORKFLOW = `version: 1
name: unpriced-model
inputs:
  row: { type: items }
  model: { type: string, default: beta-4o-mini }
steps:
  - id: line
    uses: chat
    with: { model: "\${{ inputs.model }}", prompt: "A line about number \${{ inputs.row.n }}", maxTokens: 8 }
outputs:
  n: \${{ inputs.row.n }}
`;

let dir: string;
let redis: RedisServer;
let gateway: LocalGateway;
let store: RunStore;

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-pricing-"));
  redis = await startRedisServer(binary);
  gateway = await startLocalGateway({
    port: 0,
    config: {
      keys: [
        { key: PROCESS_KEY, name: PROCESS_KEY, concurrency: 64 },
        { key: KEY, name: KEY, concurrency: 64 },
      ],
      prices: { chat: { "beta-4o-mini": FILE_PRICE } },
    },
  });
  store = RunStore.connect(redis.url);
  await batchWorkflow(
    dir,
    "rows",
    WORKFLOW,
    Array.from({ length: ROWS }, (_, n) => ({ n })),
  );
  await writeFile(join(dir, "unpriced.yaml"), WORKFLOW);
  await writeFile(
    join(dir, "budgeted-literal.yaml"),
    WORKFLOW.replace("name: unpriced-model\n", "name: budgeted-literal\nbudget: { maxYuan: 5 }\n").replace(
      '"${{ inputs.model }}"',
      "beta-4o-mini",
    ),
  );
  await writeFile(
    join(dir, "prices.yaml"),
    `chat:\n  beta-4o-mini: { input: ${FILE_PRICE.input}, output: ${FILE_PRICE.output} }\n`,
  );
  await writeFile(join(dir, "bad-prices.yaml"), "chat:\n  beta-4o-minni: { input: 1, output: 1 }\n");
});
afterAll(async () => {
  await store?.close();
  await gateway?.close();
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

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

const runIdOf = (out: string) => /Run ([0-9a-f-]+): \d+ item/.exec(out)?.[1] ?? "";
const billedChats = (key: string) =>
  gateway
    .stats()
    .keys.find((stats) => stats.name === key)
    ?.billed.filter((entry) => entry.kind === "chat") ?? [];
const costFile = async (name: string) =>
  JSON.parse(await readFile(join(dir, name, "cost.json"), "utf8")) as CostSummary & { calls: CostEntry[] };
const priced = (entry: CostEntry, price: { input: number; output: number }) =>
  roundYuan(tokenCost(entry.promptTokens, price.input) + tokenCost(entry.completionTokens, price.output));

async function spawnWorker(apiKey: string): Promise<ChildProcess> {
  // The worker has no price flags at all: what it charges must come from the run.
  const child = spawn(
    process.execPath,
    [BIN, "worker", "--redis", redis.url, "--artifacts", join(dir, "shared"), "--concurrency", "4"],
    {
      env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: apiKey },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  while (!log.includes("svc-flow worker ready")) {
    if (child.exitCode !== null) throw new Error(`The worker exited: ${log}`);
    await sleep(50);
  }
  return child;
}

describe.skipIf(binary === undefined)("--prices and --allow-unpriced on distributed runs", () => {
  it("charges a --prices file's prices on a worker process started without it, and the shared budget counts them", async () => {
    const child = await spawnWorker(PROCESS_KEY);
    onTestFinished(async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    });
    const run = await cli([
      "run",
      "unpriced.yaml",
      "--input",
      "row=rows.jsonl",
      "--redis",
      redis.url,
      "--budget",
      "5",
      "--prices",
      "prices.yaml",
      "--out",
      "priced",
    ]);
    expect(run.out).toContain(`Done. ${ROWS} item(s).`);
    expect(run.code).toBe(0);

    const cost = await costFile("priced");
    const billed = billedChats(PROCESS_KEY);
    expect(billed).toHaveLength(ROWS);
    const gatewayTotal = billed.reduce((sum, entry) => roundYuan(sum + entry.yuan), 0);
    expect(gatewayTotal).toBeGreaterThan(0);
    // The ledger's report and the gateway's bill agree, at the file's prices, with nothing unpriced.
    expect(cost).toMatchObject({ complete: true, totalYuan: gatewayTotal, unpriced: { calls: 0 } });
    for (const entry of cost.calls) {
      expect(entry.priceSource).toBe("override");
      expect(entry.yuan).toBe(priced(entry, FILE_PRICE));
    }
    expect(await new RunBudget(store, runIdOf(run.out)).state()).toEqual({
      maxYuan: 5,
      spentYuan: gatewayTotal,
      heldYuan: 0,
    });
  }, 60_000);

  it("refuses an unpriced model under a budget without the flags, then resume --prices finishes it at the file's prices", async () => {
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 2,
    });
    onTestFinished(() => worker.close());
    const before = billedChats(KEY).length;
    const refused = await cli([
      "run",
      "unpriced.yaml",
      "--input",
      "row=rows.jsonl",
      "--redis",
      redis.url,
      "--budget",
      "5",
      "--out",
      "refused",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/beta-4o-mini has no price/);
    expect(refused.out).toMatch(
      /resume with its price or with --allow-unpriced: svc-flow resume [0-9a-f-]+ --redis URL --prices FILE/,
    );
    // Nothing was sent.
    expect(billedChats(KEY)).toHaveLength(before);

    const resumed = await cli([
      "resume",
      runIdOf(refused.out),
      "--redis",
      redis.url,
      "--prices",
      "prices.yaml",
      "--out",
      "refused-priced",
    ]);
    expect(resumed.out).toContain(`Done. ${ROWS} item(s).`);
    expect(resumed.code).toBe(0);
    const cost = await costFile("refused-priced");
    expect(cost).toMatchObject({ complete: true, unpriced: { calls: 0 } });
    expect(cost.calls.map((entry) => entry.yuan)).toEqual(cost.calls.map((entry) => priced(entry, FILE_PRICE)));
    expect(billedChats(KEY)).toHaveLength(before + ROWS);
  }, 60_000);

  it("runs the unpriced model under a budget with --allow-unpriced, recorded as unpriced, and resume --allow-unpriced does the same", async () => {
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 2,
    });
    onTestFinished(() => worker.close());
    const allowed = await cli([
      "run",
      "unpriced.yaml",
      "--input",
      "row=rows.jsonl",
      "--redis",
      redis.url,
      "--budget",
      "5",
      "--allow-unpriced",
      "--out",
      "allowed",
    ]);
    expect(allowed.out).toContain(`Done. ${ROWS} item(s).`);
    expect(allowed.code).toBe(0);
    expect(await costFile("allowed")).toMatchObject({
      complete: false,
      unpriced: { calls: ROWS, models: ["beta-4o-mini"] },
    });

    const refused = await cli([
      "run",
      "unpriced.yaml",
      "--input",
      "row=rows.jsonl",
      "--redis",
      redis.url,
      "--budget",
      "5",
      "--out",
      "refused-then-allowed",
    ]);
    expect(refused.code).toBe(1);
    const resumed = await cli([
      "resume",
      runIdOf(refused.out),
      "--redis",
      redis.url,
      "--allow-unpriced",
      "--out",
      "refused-then-allowed",
    ]);
    expect(resumed.out).toContain(`Done. ${ROWS} item(s).`);
    expect(await costFile("refused-then-allowed")).toMatchObject({ unpriced: { calls: ROWS } });
  }, 60_000);

  it("refuses a file that budgets a model without a price before enqueuing, and runs it on a worker with --allow-unpriced", async () => {
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 2,
    });
    onTestFinished(() => worker.close());
    const before = billedChats(KEY).length;
    const args = ["run", "budgeted-literal.yaml", "--input", "row=rows.jsonl", "--redis", redis.url];
    const refused = await cli([...args, "--out", "literal-refused"]);
    expect(refused.out).toMatch(/Step "line" may call beta-4o-mini, which has no published price/);
    expect(refused.code).toBe(2);
    expect(billedChats(KEY)).toHaveLength(before);

    const allowed = await cli([...args, "--allow-unpriced", "--out", "literal-allowed"]);
    expect(allowed.out).toContain(`Done. ${ROWS} item(s).`);
    expect(allowed.code).toBe(0);
    expect(await costFile("literal-allowed")).toMatchObject({ unpriced: { calls: ROWS, models: ["beta-4o-mini"] } });
  }, 60_000);

  it("keeps the run's stored prices on resume unless new ones are given, which replace them", async () => {
    const { workflow, items } = await batchWorkflow(
      dir,
      "kept",
      WORKFLOW,
      Array.from({ length: ROWS }, (_, n) => ({ n })),
    );
    const start = (name: string) =>
      enqueueRun(store, workflow, {
        redisURL: redis.url,
        inputs: { row: items },
        outDir: join(dir, name),
        budgetYuan: 5,
        prices: { chat: { "beta-4o-mini": OTHER_PRICE } },
      });
    // No worker yet: the items wait in the queue while the runs are resumed.
    const kept = await start("kept");
    const replaced = await start("replaced");
    await reenqueueRun(store, kept.runId, redis.url, { budgetYuan: 6 });
    await reenqueueRun(store, replaced.runId, redis.url, { prices: { chat: { "beta-4o-mini": FILE_PRICE } } });
    expect(await new RunPricing(store, kept.runId).settings()).toEqual({
      prices: { chat: { "beta-4o-mini": OTHER_PRICE } },
    });

    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 4,
    });
    onTestFinished(() => worker.close());
    for (const [run, price] of [
      [kept, OTHER_PRICE],
      [replaced, FILE_PRICE],
    ] as const) {
      expect(await awaitRun(store, run.runId, { pollMs: 50 })).toMatchObject({ status: "done", done: ROWS });
      const cost = await costFile(run === kept ? "kept" : "replaced");
      expect(cost.calls).toHaveLength(ROWS);
      expect(cost.calls.map((entry) => entry.yuan)).toEqual(cost.calls.map((entry) => priced(entry, price)));
      expect((await new RunBudget(store, run.runId).state())!.spentYuan).toBe(cost.totalYuan);
    }
  }, 60_000);

  it("gives svc-flow schedule --redis's --prices and --allow-unpriced to every firing", async () => {
    // beta-4o-mini is priced by the file; beta-4o stays unpriced and runs only because it is allowed.
    await writeFile(
      join(dir, "scheduled.yaml"),
      `version: 1
name: scheduled
schedule: { cron: "* * * * * *", overlap: skip }
inputs:
  row: { type: items, default: rows.jsonl }
steps:
  - id: priced
    uses: chat
    with: { model: beta-4o-mini, prompt: "A line about \${{ inputs.row.n }}", maxTokens: 8 }
  - id: unpriced
    uses: chat
    with: { model: beta-4o, prompt: "Another line about \${{ inputs.row.n }}", maxTokens: 8 }
`,
    );
    const worker = await startTestWorker(redis.url, gateway, KEY, {
      artifactsDir: join(dir, "shared"),
      concurrency: 4,
    });
    onTestFinished(() => worker.close());
    const stop = new AbortController();
    let out = "";
    const sink = { write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WritableStream;
    const argv = [
      "schedule",
      "scheduled.yaml",
      "--runs",
      "scheduled-runs",
      "--redis",
      redis.url,
      "--budget",
      "5",
      "--prices",
      "prices.yaml",
      "--allow-unpriced",
    ];
    const exit = main(argv, {
      stdout: sink as never,
      stderr: sink as never,
      env: process.env,
      cwd: dir,
      signal: stop.signal,
    });
    const deadline = Date.now() + 30_000;
    while (!/scheduled: (done|failed|stopped)/.test(out) && Date.now() < deadline) await sleep(50);
    stop.abort();
    expect(await exit).toBe(0);
    const runDir = /scheduled: done, ¥[\d.]+ \([^,]+ firing, ([^)]+)\)/.exec(out)?.[1];
    expect(runDir, out).toBeDefined();
    const cost = JSON.parse(await readFile(resolve(dir, runDir!, "cost.json"), "utf8")) as CostSummary & {
      calls: CostEntry[];
    };
    expect(cost.unpriced).toMatchObject({ calls: ROWS, models: ["beta-4o"] });
    const mini = cost.calls.filter((entry) => entry.modelRequested === "beta-4o-mini");
    expect(mini).toHaveLength(ROWS);
    expect(mini.map((entry) => entry.yuan)).toEqual(mini.map((entry) => priced(entry, FILE_PRICE)));
  }, 60_000);

  it("rejects a bad price file before anything is enqueued", async () => {
    const keysBefore = await store.redis.keys("svc-flow:run:*");
    const bad = await cli([
      "run",
      "unpriced.yaml",
      "--input",
      "row=rows.jsonl",
      "--redis",
      redis.url,
      "--prices",
      "bad-prices.yaml",
      "--out",
      "bad",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/bad-prices\.yaml:2: chat\.beta-4o-minni: unknown model "beta-4o-minni"/);
    const { workflow, items } = await batchWorkflow(dir, "bad-api", WORKFLOW, [{ n: 0 }]);
    const enqueued = enqueueRun(store, workflow, {
      redisURL: redis.url,
      inputs: { row: items },
      outDir: join(dir, "bad-api"),
      prices: { image: { "beta-4o-mini": 1 } },
    });
    await expect(enqueued).rejects.toThrow(ConfigError);
    await expect(enqueued).rejects.toThrow(/beta-4o-mini is billed per token; put its price under chat/);
    expect(await store.redis.keys("svc-flow:run:*")).toEqual(keysBefore);
    await expect(access(join(dir, "bad"))).rejects.toThrow();
    await expect(access(join(dir, "bad-api"))).rejects.toThrow();
  });
});
