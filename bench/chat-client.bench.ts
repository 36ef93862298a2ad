// Client cost of a chat call, measured in one run against the same local gateway (its own
// process, no simulated latency): raw undici requests (the floor: send, read, JSON.parse every
// event), svc-flow's chat core (callChat), the official openai SDK, ChatGateway, and LangChain's
// ChatOpenAI, each in a fresh process per repeat so CPU time and peak RSS are the client's own.
// Cases: non-stream requests, streamed text (~120 chunks a reply), streamed tool calls (3 calls a
// reply), and non-stream requests of which the gateway refuses about a fifth with a 429 (each client
// retries its own way), all at concurrency 64.
// Targets: the core at most 2x raw undici's CPU and below the openai SDK's; ChatGateway at most
// 0.35x ChatOpenAI's. A last case sends 64 calls in flight at a gateway with 1 s of simulated
// latency, through callChat and ChatGateway built with their default options (and raw undici with a
// 64-connection pool beside them): wall time against the ideal, calls x latency / 64 (target: the ideal
// at least 0.85 of the wall time). CHAT_CLIENT_CASES=stream,tool-stream runs only the cases named.
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { CaseName, ClientName, WorkerResult } from "./chat-client-bench-worker.js";
import { median, type Bench, type BenchRow } from "./harness.js";

const SERVER = fileURLToPath(new URL("./batch-gateway-server.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./chat-client-bench-worker.ts", import.meta.url));
const CONCURRENCY = 64;
const MIB = 1024 * 1024;
const CLIENTS: readonly ClientName[] = ["raw", "core", "sdk", "gateway", "openai"];
const LABELS: Record<ClientName, string> = {
  raw: "raw undici",
  core: "callChat (core)",
  sdk: "openai SDK",
  gateway: "ChatGateway",
  openai: "ChatOpenAI",
};

/**
 * Requests measured, and warm-up requests before them, per process. Code that runs once a request
 * is optimized by V8 only after thousands of requests: with shorter warm-ups (1,500 / 250 / 1,000)
 * every client's CPU per request was still falling, raw undici's included, and under --no-opt the
 * warm-up made no difference. The full warm-ups are where it stopped falling (checked at twice as
 * many); quick runs still include part of the tier-up.
 */
const SIZES: Record<Exclude<CaseName, "in-flight">, { full: [number, number]; quick: [number, number] }> = {
  "non-stream": { full: [3000, 5000], quick: [800, 800] },
  stream: { full: [500, 2000], quick: [150, 150] },
  "tool-stream": { full: [2000, 5000], quick: [500, 500] },
  "429": { full: [1000, 500], quick: [150, 50] },
};

async function runWorker(
  client: ClientName,
  caseName: CaseName,
  baseURL: string,
  requests: number,
  warmup: number,
): Promise<WorkerResult> {
  const child = fork(WORKER, [client, caseName, baseURL, String(CONCURRENCY), String(requests), String(warmup)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`The ${client} ${caseName} bench worker exited with code ${String(code)} before reporting.`);
  });
  const [result] = (await Promise.race([once(child, "message"), exited])) as [WorkerResult];
  await once(child, "exit").catch(() => undefined);
  return result;
}

function medians(results: readonly WorkerResult[]) {
  return {
    cpuMs: median(results.map((result) => result.cpuMs / result.requests)),
    perSecond: median(results.map((result) => result.requests / (result.wallMs / 1000))),
    peakMiB: median(results.map((result) => result.peakRssBytes / MIB)),
    chunks: median(results.map((result) => result.chunks / result.requests)),
    wireChunks: median(results.map((result) => result.wireChunks / result.requests)),
  };
}

function caseRows(caseName: CaseName, byClient: Record<ClientName, WorkerResult[]>): BenchRow[] {
  const stats = Object.fromEntries(CLIENTS.map((client) => [client, medians(byClient[client])])) as Record<
    ClientName,
    ReturnType<typeof medians>
  >;
  const floor = stats.raw;
  const streamed = caseName !== "non-stream";
  const label = `${caseName} c=${CONCURRENCY}`;
  const rows: BenchRow[] = [];
  const row = (client: ClientName, metric: string, value: number, unit: string, base: number, note?: string): void => {
    rows.push({
      bench: "chat-client",
      case: `${label} ${LABELS[client]}`,
      metric,
      value,
      unit,
      baseline: base,
      ratio: value / base,
      ...(note ? { note } : {}),
    });
  };
  for (const client of CLIENTS) {
    const { cpuMs, perSecond, peakMiB, chunks } = stats[client];
    row(
      client,
      "client CPU per request",
      cpuMs,
      "ms",
      floor.cpuMs,
      client === "raw" ? "baseline: raw undici, same run" : undefined,
    );
    if (streamed) {
      // Every client reads the same events; they yield different numbers of chunks (ChatGateway
      // folds role, finish and usage into one final chunk), so CPU is divided by the wire's count.
      row(
        client,
        "client CPU per chunk",
        (cpuMs * 1000) / floor.wireChunks,
        "us",
        (floor.cpuMs * 1000) / floor.wireChunks,
        `${floor.wireChunks.toFixed(1)} SSE chunks a reply; ${chunks.toFixed(1)} yielded`,
      );
      row(
        client,
        "throughput",
        perSecond * floor.wireChunks,
        "chunks/s",
        floor.perSecond * floor.wireChunks,
        "bounded by the gateway on 2 cores",
      );
    } else {
      row(client, "throughput", perSecond, "req/s", floor.perSecond, "bounded by the gateway on 2 cores");
    }
    row(client, "peak RSS", peakMiB, "MiB", floor.peakMiB, "whole client process (tsx, modules, heap)");
  }
  const versus = (client: ClientName, baseline: ClientName, note: string): void => {
    const value = stats[client].cpuMs;
    const base = stats[baseline].cpuMs;
    rows.push({
      bench: "chat-client",
      case: `${label} ${LABELS[client]} vs ${LABELS[baseline]}`,
      metric: "client CPU per request",
      value,
      unit: "ms",
      baseline: base,
      ratio: value / base,
      note,
    });
  };
  versus("core", "raw", "target <= 2x");
  versus("core", "sdk", "target < 1x");
  versus("gateway", "openai", "target <= 0.35x");
  return rows;
}

/** CHAT_CLIENT_CASES=stream,tool-stream runs only those cases (in-flight included); default all. */
const ONLY_CASES = process.env.CHAT_CLIENT_CASES?.split(",").filter(Boolean);
const selected = (caseName: CaseName): boolean => ONLY_CASES === undefined || ONLY_CASES.includes(caseName);

const bench: Bench = {
  name: "chat-client",
  async run({ quick }) {
    const repeats = quick ? 3 : 5;
    const server = fork(SERVER, ["0"], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const [{ baseURL }] = (await once(server, "message")) as [{ baseURL: string }];
    const rows: BenchRow[] = [];
    try {
      for (const caseName of (Object.keys(SIZES) as Array<keyof typeof SIZES>).filter(selected)) {
        const [requests, warmup] = SIZES[caseName][quick ? "quick" : "full"];
        const byClient = Object.fromEntries(CLIENTS.map((client) => [client, []])) as unknown as Record<
          ClientName,
          WorkerResult[]
        >;
        for (let repeat = 0; repeat < repeats; repeat++) {
          // Rotate the order so drift in the machine's load hits every client alike.
          const order = CLIENTS.map((_, index) => CLIENTS[(index + repeat) % CLIENTS.length]!);
          for (const client of order)
            byClient[client].push(await runWorker(client, caseName, baseURL, requests, warmup));
        }
        rows.push(...caseRows(caseName, byClient));
      }
    } finally {
      server.send("stop");
      await once(server, "exit");
    }
    if (selected("in-flight")) rows.push(...(await inFlightRows(repeats, quick)));
    return rows;
  },
};

const LATENCY_MS = 1000;
const IN_FLIGHT_CLIENTS: readonly ClientName[] = ["raw", "core", "gateway"];

/** 64 calls in flight with default options, against a gateway with fixed latency: wall time against the ideal. */
async function inFlightRows(repeats: number, quick: boolean): Promise<BenchRow[]> {
  const requests = quick ? 320 : 640;
  const server = fork(SERVER, [String(LATENCY_MS)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [{ baseURL }] = (await once(server, "message")) as [{ baseURL: string }];
  const walls = Object.fromEntries(IN_FLIGHT_CLIENTS.map((client) => [client, [] as number[]])) as Record<
    ClientName,
    number[]
  >;
  try {
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const client of IN_FLIGHT_CLIENTS) {
        const result = await runWorker(client, "in-flight", baseURL, requests, CONCURRENCY);
        walls[client].push(result.wallMs);
      }
    }
  } finally {
    server.send("stop");
    await once(server, "exit");
  }
  const idealMs = (requests / CONCURRENCY) * LATENCY_MS;
  return IN_FLIGHT_CLIENTS.map((client) => {
    const wallMs = median(walls[client]);
    const efficiency = idealMs / wallMs;
    return {
      bench: "chat-client",
      case: `in-flight c=${CONCURRENCY} latency ${LATENCY_MS}ms ${LABELS[client]}${client === "raw" ? " (64 connections)" : " (defaults)"}`,
      metric: "wall time",
      value: wallMs,
      unit: "ms",
      baseline: idealMs,
      ratio: wallMs / idealMs,
      note: `ideal = ${requests} calls x ${LATENCY_MS} ms / ${CONCURRENCY}; efficiency ${efficiency.toFixed(2)} (target >= 0.85)`,
    };
  });
}

export default bench;
