// Batch throughput and memory: a one-step workflow mapped over an N-row JSONL file at 64 in flight,
// against the local gateway (own process, so RSS is the client's alone) answering every call after
// a fixed latency. Items/s is compared with the ideal concurrency / latency; the large batch's peak
// RSS with the small one's (flat memory: a ratio near 1 however many rows; target <= 1.2x at 10x the
// rows), and so is the heap still held after the run (after a full GC), which leaves out garbage V8
// had not yet collected. Each case runs in a fresh process; rounds alternate small and large, and
// the rows give medians.
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { median, type Bench, type BenchRow } from "./harness.js";

const SERVER = fileURLToPath(new URL("./batch-gateway-server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./batch-bench-worker.ts", import.meta.url));
const LATENCY_MS = 50;
const CONCURRENCY = 64;
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
    const [small, large] = quick ? [1_000, 10_000] : [10_000, 100_000];
    const rounds = quick ? 1 : 3;
    try {
      const smallCases: CaseResult[] = [];
      const largeCases: CaseResult[] = [];
      for (let round = 0; round < rounds; round++) {
        smallCases.push(await runCase(baseURL, small));
        largeCases.push(await runCase(baseURL, large));
      }
      const note = `median of ${rounds} round${rounds === 1 ? "" : "s"}`;
      const ideal = CONCURRENCY / (LATENCY_MS / 1000);
      const rows: BenchRow[] = [];
      for (const [count, cases] of [
        [small, smallCases],
        [large, largeCases],
      ] as const) {
        const perSecond = median(cases.map((result) => count / (result.wallMs / 1000)));
        rows.push({
          bench: "batch",
          case: `${count} rows, c=${CONCURRENCY}, ${LATENCY_MS} ms`,
          metric: "items/s",
          value: perSecond,
          unit: "items/s",
          baseline: ideal,
          ratio: perSecond / ideal,
          note: `baseline: ideal = concurrency / latency; ${note}`,
        });
      }
      const peak = (cases: readonly CaseResult[]) => median(cases.map((result) => result.peakRss / MIB));
      const growth = (cases: readonly CaseResult[]) =>
        median(cases.map((result) => (result.peakRss - result.baseRss) / MIB));
      rows.push({
        bench: "batch",
        case: `${large} rows vs ${small}`,
        metric: "peak RSS",
        value: peak(largeCases),
        unit: "MiB",
        baseline: peak(smallCases),
        ratio: peak(largeCases) / peak(smallCases),
        note: `whole client process; baseline: the ${small}-row batch (target <= 1.2x); ${note}`,
      });
      rows.push({
        bench: "batch",
        case: `${large} rows vs ${small}`,
        metric: "peak RSS growth",
        value: growth(largeCases),
        unit: "MiB",
        baseline: growth(smallCases),
        ratio: growth(largeCases) / growth(smallCases),
        note: `peak minus RSS before the run; flat memory: ratio near 1, not ${large / small}; ${note}`,
      });
      const retained = (cases: readonly CaseResult[]) =>
        median(cases.map((result) => (result.endHeap - result.baseHeap) / MIB));
      rows.push({
        bench: "batch",
        case: `${large} rows vs ${small}`,
        metric: "heap retained after run",
        value: retained(largeCases),
        unit: "MiB",
        baseline: retained(smallCases),
        ratio: retained(largeCases) / retained(smallCases),
        note: `after a full GC; baseline: the ${small}-row batch; ${note}`,
      });
      return rows;
    } finally {
      server.send("stop");
      await once(server, "exit");
    }
  },
};

export default bench;
