// Local gateway throughput against a minimal node:http server returning the same bytes canned:
// non-stream requests/s and streamed chunks/s at several concurrencies, measured in one run.
// Target: the gateway sustains at least half of the baseline. "repeated" sends one request over
// and over (the gateway answers from its reply cache, as for retries and reruns); "unique" makes
// every request new, so each is simulated and tokenized.
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { median, type Bench, type BenchRow } from "./harness.js";
import type { Canned } from "./gateway-throughput-server.js";

const SERVER = fileURLToPath(new URL("./gateway-throughput-server.ts", import.meta.url));
const HEADERS = { authorization: "Bearer sk-local-demo", "content-type": "application/json" };
const REQUEST = {
  model: "beta-4o-mini",
  messages: [{ role: "user", content: "Summarise the benefits of unit tests in two sentences." }],
};
const PLAIN_BODY = JSON.stringify(REQUEST);
const STREAM_BODY = JSON.stringify({ ...REQUEST, stream: true, stream_options: { include_usage: true } });
let counter = 0;

/** Request bodies: the same one each time (the gateway's reply cache answers), or all different. */
function bodies(stream: boolean, unique: boolean): () => string {
  const fixed = stream ? STREAM_BODY : PLAIN_BODY;
  if (!unique) return () => fixed;
  return () => {
    const content = `${REQUEST.messages[0]!.content} (request ${counter++})`;
    return JSON.stringify({
      ...REQUEST,
      messages: [{ role: "user", content }],
      ...(stream ? { stream, stream_options: { include_usage: true } } : {}),
    });
  };
}

interface Server {
  readonly origin: string;
  stop(): Promise<void>;
}

async function startServer(mode: "gateway" | "baseline", canned?: Canned): Promise<Server> {
  const env = canned ? { ...process.env, BENCH_CANNED: JSON.stringify(canned) } : process.env;
  const child: ChildProcess = fork(SERVER, [mode], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env,
  });
  const [message] = (await once(child, "message")) as [{ port: number }];
  return {
    origin: `http://127.0.0.1:${message.port}`,
    stop: async () => {
      child.send("stop");
      await once(child, "exit");
    },
  };
}

function countEvents(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n\n"); index !== -1; index = text.indexOf("\n\n", index + 2)) count++;
  return count - (text.includes("data: [DONE]") ? 1 : 0);
}

/** Keeps `concurrency` requests in flight for `durationMs`; per-second requests and SSE chunks. */
async function load(
  origin: string,
  body: () => string,
  concurrency: number,
  durationMs: number,
): Promise<{ requests: number; chunks: number }> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  let requests = 0;
  let chunks = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const response = await pool.request({
        path: "/v1/chat/completions",
        method: "POST",
        headers: HEADERS,
        body: body(),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) failures++;
      else {
        requests++;
        chunks += countEvents(text);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (failures > 0) throw new Error(`${failures} requests failed during the benchmark.`);
  return { requests: requests / seconds, chunks: chunks / seconds };
}

async function capture(origin: string): Promise<{ json: string; events: string[] }> {
  const pool = new Pool(origin);
  const plain = await pool.request({
    path: "/v1/chat/completions",
    method: "POST",
    headers: HEADERS,
    body: PLAIN_BODY,
  });
  const json = await plain.body.text();
  const streamed = await pool.request({
    path: "/v1/chat/completions",
    method: "POST",
    headers: HEADERS,
    body: STREAM_BODY,
  });
  const events = (await streamed.body.text()).split(/(?<=\n\n)/);
  await pool.close();
  return { json, events };
}

const bench: Bench = {
  name: "gateway-throughput",
  async run({ quick }) {
    const concurrencies = quick ? [1, 16] : [1, 8, 32, 64];
    const durationMs = quick ? 600 : 2000;
    const repeats = quick ? 3 : 5;
    const gateway = await startServer("gateway");
    const canned = await capture(gateway.origin);
    const baseline = await startServer("baseline", canned);
    const rows: BenchRow[] = [];
    try {
      // Warm both (JIT, the tokenizer's tables, connection setup) before measuring.
      await load(gateway.origin, bodies(false, true), 4, 500);
      await load(gateway.origin, bodies(true, true), 4, 500);
      await load(baseline.origin, bodies(false, true), 4, 300);
      for (const concurrency of concurrencies) {
        for (const [kind, stream, metric, unit] of [
          ["non-stream", false, "requests", "req/s"],
          ["stream", true, "chunks", "chunks/s"],
        ] as const) {
          for (const unique of [false, true]) {
            const body = bodies(stream, unique);
            // Alternate the two servers so drift in the machine's load hits both alike.
            const measured: number[] = [];
            const reference: number[] = [];
            for (let repeat = 0; repeat < repeats; repeat++) {
              measured.push((await load(gateway.origin, body, concurrency, durationMs))[metric]);
              reference.push((await load(baseline.origin, body, concurrency, durationMs))[metric]);
            }
            const value = median(measured);
            const base = median(reference);
            rows.push({
              bench: "gateway-throughput",
              case: `${kind} ${unique ? "unique" : "repeated"} c=${concurrency}`,
              metric: `${metric}/s`,
              value: Math.round(value),
              unit,
              baseline: Math.round(base),
              ratio: value / base,
              note: unique ? "every request new: simulated each time" : "same request: reply cache",
            });
          }
        }
      }
    } finally {
      await Promise.all([gateway.stop(), baseline.stop()]);
    }
    return rows;
  },
};

export default bench;
