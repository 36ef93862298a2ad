// Batch throughput and memory: a one-step workflow mapped over an N-row JSONL file, against the
// local gateway (own process) answering every call after a fixed latency. Items/s is compared
// with the ideal concurrency / latency; peak RSS growth at 10,000 rows is compared with 1,000 rows
// (flat memory means a ratio near 1, however many rows), and so is the heap still held after the
// run, which leaves out garbage V8 had not yet collected. Each case runs in a fresh process.
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Bench, BenchRow } from "./harness.js";

const SERVER = fileURLToPath(new URL("./batch-gateway-server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./batch-bench-worker.ts", import.meta.url));
const LATENCY_MS = 50;
const CONCURRENCY = 32;
const MIB = 1024 * 1024;

interface CaseResult {
  readonly wallMs: number;
  readonly baseRss: number;
  readonly peakRss: number;
  readonly baseHeap: number;
  readonly endHeap: number;
  readonly status: string;
  readonly outputs?: { items?: { done: number; failed: number; total: number } };
}

async function runCase(baseURL: string, rows: number): Promise<CaseResult> {
  const child = fork(WORKER, [baseURL, String(rows), String(CONCURRENCY)], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [message] = (await once(child, "message")) as [CaseResult];
  await once(child, "exit");
  const items = message.outputs?.items;
  if (message.status !== "done" || items?.done !== rows) {
    throw new Error(`The ${rows}-row batch ended ${message.status} with ${JSON.stringify(items)}.`);
  }
  return message;
}

const bench: Bench = {
  name: "batch",
  async run({ quick }) {
    const server = fork(SERVER, [String(LATENCY_MS)], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const [{ baseURL }] = (await once(server, "message")) as [{ baseURL: string }];
    const [small, large] = quick ? [200, 2_000] : [1_000, 10_000];
    try {
      const smallCase = await runCase(baseURL, small);
      const largeCase = await runCase(baseURL, large);
      const ideal = CONCURRENCY / (LATENCY_MS / 1000);
      const rows: BenchRow[] = [];
      for (const [count, result] of [
        [small, smallCase],
        [large, largeCase],
      ] as const) {
        const perSecond = count / (result.wallMs / 1000);
        rows.push({
          bench: "batch",
          case: `${count} rows, c=${CONCURRENCY}, ${LATENCY_MS} ms`,
          metric: "items/s",
          value: perSecond,
          unit: "items/s",
          baseline: ideal,
          ratio: perSecond / ideal,
          note: "baseline: ideal = concurrency / latency",
        });
      }
      const growth = (result: CaseResult) => (result.peakRss - result.baseRss) / MIB;
      rows.push({
        bench: "batch",
        case: `${small} rows`,
        metric: "peak RSS growth",
        value: growth(smallCase),
        unit: "MiB",
        note: `peak RSS ${(smallCase.peakRss / MIB).toFixed(0)} MiB`,
      });
      rows.push({
        bench: "batch",
        case: `${large} rows`,
        metric: "peak RSS growth",
        value: growth(largeCase),
        unit: "MiB",
        baseline: growth(smallCase),
        ratio: growth(largeCase) / growth(smallCase),
        note: `peak RSS ${(largeCase.peakRss / MIB).toFixed(0)} MiB; baseline: the ${small}-row case (flat memory: ratio near 1, not ${large / small})`,
      });
      const retained = (result: CaseResult) => (result.endHeap - result.baseHeap) / MIB;
      rows.push({
        bench: "batch",
        case: `${large} rows`,
        metric: "heap retained after run",
        value: retained(largeCase),
        unit: "MiB",
        baseline: retained(smallCase),
        ratio: retained(largeCase) / retained(smallCase),
        note: `after a full GC; baseline: the ${small}-row case`,
      });
      return rows;
    } finally {
      server.send("stop");
      await once(server, "exit");
    }
  },
};

export default bench;
