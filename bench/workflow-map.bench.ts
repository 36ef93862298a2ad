// A map workflow of N chat items at 64 in flight against the local gateway (own process, fixed
// simulated latency), with a bare p-queue + undici loop sending the same calls beside it, round by
// round (rounds alternate, so both see the same machine): wall time against the ideal
// items x latency / concurrency (target >= 0.9), client CPU per item against the bare loop's
// (target <= 1.5x), the same bare loop with the least journal a run that pays nothing twice needs (what durability
// alone costs), peak RSS of the running process, and how long `resume` takes on the finished run
// (all items replayed from the journal, no calls). Medians over the rounds.
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { median, type Bench, type BenchRow } from "./harness.js";

const SERVER = fileURLToPath(new URL("./batch-gateway-server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./workflow-map-bench-worker.ts", import.meta.url));
const BARE = fileURLToPath(new URL("./bare-loop-bench-worker.ts", import.meta.url));
const LATENCY_MS = 100;
const CONCURRENCY = 64;
const MIB = 1024 * 1024;

interface MapResult {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly resumeMs: number;
  readonly baseRss: number;
  readonly peakRss: number;
  readonly status: string;
  readonly resumedStatus: string;
  readonly done: number;
}

interface BareResult {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function runWorker<T>(file: string, args: readonly string[]): Promise<T> {
  const child = fork(file, args, {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`${file} exited with code ${String(code)} before reporting.`);
  });
  const [message] = (await Promise.race([once(child, "message"), exited])) as [T];
  await once(child, "exit").catch(() => undefined);
  return message;
}

async function runMap(baseURL: string, items: number, warmup: number): Promise<MapResult> {
  const args = [baseURL, String(items), String(CONCURRENCY), String(warmup)];
  const result = await runWorker<MapResult>(WORKER, args);
  if (result.status !== "done" || result.resumedStatus !== "done" || result.done !== items) {
    throw new Error(
      `The ${items}-item map ended ${result.status} (resume: ${result.resumedStatus}) with ${result.done} items.`,
    );
  }
  return result;
}

const bench: Bench = {
  name: "workflow-map",
  async run({ quick }) {
    const server = fork(SERVER, [String(LATENCY_MS)], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const [{ baseURL }] = (await once(server, "message")) as [{ baseURL: string }];
    const items = quick ? 500 : 2_000;
    const warmup = quick ? 100 : 500;
    const rounds = quick ? 2 : 5;
    try {
      const maps: MapResult[] = [];
      const bares: BareResult[] = [];
      const journaled: BareResult[] = [];
      for (let round = 0; round < rounds; round++) {
        maps.push(await runMap(baseURL, items, warmup));
        const bareArgs = [baseURL, String(items), String(CONCURRENCY), String(warmup)];
        bares.push(await runWorker<BareResult>(BARE, bareArgs));
        journaled.push(await runWorker<BareResult>(BARE, [...bareArgs, "journal"]));
      }
      const idealMs = (items * LATENCY_MS) / CONCURRENCY;
      const label = `${items} items, c=${CONCURRENCY}, ${LATENCY_MS} ms`;
      const note = `median of ${rounds} rounds, after a ${warmup}-item warm-up`;
      const wallMs = median(maps.map((result) => result.wallMs));
      const bareWallMs = median(bares.map((result) => result.wallMs));
      const cpuPerItem = median(maps.map((result) => result.cpuMs / items));
      const bareCpuPerItem = median(bares.map((result) => result.cpuMs / items));
      const journaledCpuPerItem = median(journaled.map((result) => result.cpuMs / items));
      const rows: BenchRow[] = [
        {
          bench: "workflow-map",
          case: label,
          metric: "share of ideal wall time",
          value: idealMs / wallMs,
          unit: "x",
          baseline: idealMs / bareWallMs,
          ratio: bareWallMs / wallMs,
          note: `ideal / wall (ideal = items x latency / concurrency = ${idealMs} ms; target >= 0.9); baseline: the bare p-queue + undici loop's; ${note}`,
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "wall time",
          value: wallMs,
          unit: "ms",
          baseline: idealMs,
          ratio: wallMs / idealMs,
          note: `baseline: ideal; the bare loop took ${bareWallMs.toFixed(0)} ms; ${note}`,
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "client CPU per item",
          value: cpuPerItem,
          unit: "ms",
          baseline: bareCpuPerItem,
          ratio: cpuPerItem / bareCpuPerItem,
          note: `run to report (journal, cost.json, report.html); baseline: the bare p-queue + undici loop (target <= 1.5x); ${note}`,
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "journaled bare loop: client CPU per item",
          value: journaledCpuPerItem,
          unit: "ms",
          baseline: bareCpuPerItem,
          ratio: journaledCpuPerItem / bareCpuPerItem,
          note: `the bare loop plus the least journal a run that pays nothing twice needs (an intent line before each send, a bill line after, fsyncs grouped): what durability alone costs; baseline: the bare loop; ${note}`,
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "peak RSS",
          value: median(maps.map((result) => result.peakRss / MIB)),
          unit: "MiB",
          baseline: median(maps.map((result) => result.baseRss / MIB)),
          ratio: median(maps.map((result) => result.peakRss / result.baseRss)),
          note: "baseline: RSS before the run (tsx, the engine and the warm-up run loaded)",
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "resume of the finished run",
          value: median(maps.map((result) => result.resumeMs)),
          unit: "ms",
          baseline: wallMs,
          ratio: median(maps.map((result) => result.resumeMs / result.wallMs)),
          note: "every item from the journal, no calls; baseline: the run's wall time",
        },
      ];
      return rows;
    } finally {
      server.send("stop");
      await once(server, "exit");
    }
  },
};

export default bench;
