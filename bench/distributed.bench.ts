// Distributed throughput: the same one-step batch (2,000 items) run by 1 and by 2 worker processes
// (`svc-flow worker`) over a real redis-server, against the local gateway (own process) answering
// every call after a fixed latency. Items/s with 2 workers is compared with 1 worker measured in
// the same run; worker start-up is left out (workers are ready before the run is enqueued).
import { spawn, fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { awaitRun } from "../src/workflow/distributed/await-run.js";
import { enqueueRun } from "../src/workflow/distributed/enqueue-run.js";
import { RunStore } from "../src/workflow/distributed/run-store.js";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { findRedisServer, startRedisServer, type RedisServer } from "../test/redis-server.js";
import { median, type Bench, type BenchRow } from "./harness.js";

const SERVER = fileURLToPath(new URL("./batch-gateway-server.ts", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
const LATENCY_MS = 50;
const CONCURRENCY = 16;

async function startWorkers(count: number, redis: RedisServer, baseURL: string, dir: string): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(
        process.execPath,
        [BIN, "worker", "--redis", redis.url, "--artifacts", join(dir, "shared"), "--concurrency", String(CONCURRENCY)],
        {
          env: { ...process.env, SVC_BASE_URL: baseURL, SVC_API_KEY: "sk-local-demo" },
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
      while (!out.includes("svc-flow worker ready")) {
        if (child.exitCode !== null) throw new Error(`A bench worker exited: ${out}`);
        await sleep(50);
      }
      return child;
    }),
  );
}

async function stopWorkers(workers: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      worker.kill("SIGTERM");
      if (worker.exitCode === null) await once(worker, "exit");
    }),
  );
}

// Items/s of one run of `items` rows by the workers already listening.
async function runOnce(
  store: RunStore,
  redisURL: string,
  dir: string,
  items: number,
  attempt: string,
): Promise<number> {
  const file = join(dir, `rows-${attempt}.jsonl`);
  await writeFile(
    file,
    Array.from({ length: items }, (_, index) =>
      JSON.stringify({ sku: `P-${index}`, title: `solar lantern model ${index}` }),
    ).join("\n") + "\n",
  );
  const workflow = parseWorkflow(
    'version: 1\nname: blurbs\ninputs:\n  product: { type: items }\nsteps:\n  - id: blurb\n    uses: chat\n    with: { model: beta-4o-mini, prompt: "One line for ${{ inputs.product.title }}", maxTokens: 24 }\noutputs:\n  text: ${{ steps.blurb.output.text }}\n',
    { fileName: join(dir, "blurbs.yaml"), baseDir: dir },
  );
  const started = performance.now();
  const run = await enqueueRun(store, workflow, {
    redisURL,
    inputs: { product: file },
    outDir: join(dir, `run-${attempt}`),
  });
  const result = await awaitRun(store, run.runId, { pollMs: 50 });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== "done" || result.done !== items)
    throw new Error(`The ${items}-item run ended ${result.status} with ${result.done} done.`);
  return items / seconds;
}

const bench: Bench = {
  name: "distributed",
  async run({ quick }) {
    const binary = findRedisServer();
    if (binary === undefined)
      throw new Error("The distributed bench needs redis-server (apt-get install redis-server).");
    const items = quick ? 500 : 2_000;
    const repeats = quick ? 1 : 3;
    const dir = await mkdtemp(join(tmpdir(), "svc-flow-distributed-bench-"));
    const redis = await startRedisServer(binary);
    const server = fork(SERVER, [String(LATENCY_MS)], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const [{ baseURL }] = (await once(server, "message")) as [{ baseURL: string }];
    const store = RunStore.connect(redis.url);
    const rates = new Map<number, number>();
    try {
      for (const count of [1, 2]) {
        const workers = await startWorkers(count, redis, baseURL, dir);
        try {
          const samples: number[] = [];
          for (let repeat = 0; repeat < repeats; repeat++)
            samples.push(await runOnce(store, redis.url, dir, items, `${count}-${repeat}`));
          rates.set(count, median(samples));
        } finally {
          await stopWorkers(workers);
        }
      }
    } finally {
      await store.close();
      server.send("stop");
      await once(server, "exit");
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
    const one = rates.get(1)!;
    const two = rates.get(2)!;
    const rows: BenchRow[] = [
      {
        bench: "distributed",
        case: `${items} items, 1 worker, c=${CONCURRENCY}, ${LATENCY_MS} ms`,
        metric: "items/s",
        value: one,
        unit: "items/s",
        note: `median of ${repeats}`,
      },
      {
        bench: "distributed",
        case: `${items} items, 2 workers, c=${CONCURRENCY} each, ${LATENCY_MS} ms`,
        metric: "items/s",
        value: two,
        unit: "items/s",
        baseline: one,
        ratio: two / one,
        note: `median of ${repeats}; baseline: 1 worker (same run); 2 cores shared by both workers, gateway and Redis`,
      },
    ];
    return rows;
  },
};

export default bench;
