// A map workflow of N chat items against the local gateway (own process, fixed simulated latency):
// wall time against the ideal items x latency / concurrency, peak RSS of the running process, and
// how long `resume` takes on the finished run (all items replayed from the journal, no calls).
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Bench, BenchRow } from "./harness.js";

const SERVER = fileURLToPath(new URL("./batch-gateway-server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./workflow-map-bench-worker.ts", import.meta.url));
const LATENCY_MS = 50;
const CONCURRENCY = 32;
const MIB = 1024 * 1024;

interface CaseResult {
  readonly wallMs: number;
  readonly resumeMs: number;
  readonly baseRss: number;
  readonly peakRss: number;
  readonly status: string;
  readonly resumedStatus: string;
  readonly done: number;
}

async function runCase(baseURL: string, items: number): Promise<CaseResult> {
  const child = fork(WORKER, [baseURL, String(items), String(CONCURRENCY)], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [message] = (await once(child, "message")) as [CaseResult];
  await once(child, "exit");
  if (message.status !== "done" || message.resumedStatus !== "done" || message.done !== items) {
    throw new Error(
      `The ${items}-item map ended ${message.status} (resume: ${message.resumedStatus}) with ${message.done} items.`,
    );
  }
  return message;
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
    try {
      const result = await runCase(baseURL, items);
      const idealMs = (items * LATENCY_MS) / CONCURRENCY;
      const label = `${items} items, c=${CONCURRENCY}, ${LATENCY_MS} ms`;
      const rows: BenchRow[] = [
        {
          bench: "workflow-map",
          case: label,
          metric: "wall time",
          value: result.wallMs,
          unit: "ms",
          baseline: idealMs,
          ratio: result.wallMs / idealMs,
          note: "baseline: ideal = items x latency / concurrency",
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "peak RSS",
          value: result.peakRss / MIB,
          unit: "MiB",
          baseline: result.baseRss / MIB,
          ratio: result.peakRss / result.baseRss,
          note: "baseline: RSS before the run (tsx and the engine loaded)",
        },
        {
          bench: "workflow-map",
          case: label,
          metric: "resume of the finished run",
          value: result.resumeMs,
          unit: "ms",
          baseline: result.wallMs,
          ratio: result.resumeMs / result.wallMs,
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
