// Shared set-up of the distributed budget and onItemError tests: a real redis-server, a local
// gateway, and item workers started in this process (each with its own Redis connections).
import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { LocalGateway } from "../src/server/start-local-gateway.js";
import type { ItemOutcome } from "../src/workflow/distributed/item-runner.js";
import type { MusicPolling } from "../src/workflow/kinds/music-kind.js";
import { startItemWorker, type ItemWorker } from "../src/workflow/distributed/start-item-worker.js";
import { parseWorkflow, type Workflow } from "../src/workflow/load/load-workflow.js";

/** A worker started here, with what became of each item it took, in order. */
export interface TestWorker extends ItemWorker {
  readonly outcomes: { index: number; outcome: ItemOutcome | "failed" }[];
}

/** Starts an item worker in this process against `gateway`. */
export async function startTestWorker(
  redisURL: string,
  gateway: LocalGateway,
  apiKey: string,
  options: { artifactsDir: string; concurrency: number; lockMs?: number; music?: MusicPolling },
): Promise<TestWorker> {
  const outcomes: TestWorker["outcomes"] = [];
  const worker = await startItemWorker({
    redisURL,
    artifactsDir: options.artifactsDir,
    concurrency: options.concurrency,
    ...(options.lockMs === undefined ? {} : { lockMs: options.lockMs }),
    ...(options.music === undefined ? {} : { music: options.music }),
    gateway: { baseURL: gateway.baseURL, apiKey },
    onItem: ({ index, outcome }) => outcomes.push({ index, outcome }),
  });
  return { outcomes, close: () => worker.close() };
}

const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));

/** Starts `svc-flow worker` as a child process (one that can really die: SIGSTOP, SIGKILL); resolves once it is ready. */
export async function startWorkerProcess(
  redisURL: string,
  gateway: Pick<LocalGateway, "baseURL">,
  apiKey: string,
  options: { artifactsDir: string; lockMs: number },
): Promise<ChildProcess> {
  const args = [
    BIN,
    "worker",
    "--redis",
    redisURL,
    "--artifacts",
    options.artifactsDir,
    "--concurrency",
    "1",
    "--lock-ms",
    String(options.lockMs),
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: apiKey },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  while (!log.includes("svc-flow worker ready")) {
    if (child.exitCode !== null) throw new Error(`The worker exited: ${log}`);
    await sleep(50);
  }
  return child;
}

/** A priced chat call, then a music job: for the tests of music refunds (the gateway fails some jobs). */
export const SONG_WORKFLOW = `version: 1
name: song
inputs:
  row: { type: items }
steps:
  - id: title
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "A title for song \${{ inputs.row.n }}", maxTokens: 8 }
  - id: song
    uses: music
    with: { prompt: "\${{ steps.title.output.text }}", instrumental: true, download: false }
outputs:
  n: \${{ inputs.row.n }}
`;

/** Writes `rows` as a .jsonl file and parses `text` as a workflow in `dir`. */
export async function batchWorkflow(
  dir: string,
  name: string,
  text: string,
  rows: readonly unknown[],
): Promise<{ workflow: Workflow; items: string }> {
  const items = join(dir, `${name}.jsonl`);
  await writeFile(items, `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`);
  return { workflow: parseWorkflow(text, { fileName: join(dir, `${name}.yaml`), baseDir: dir }), items };
}

/** The chat calls the gateway billed, over all keys. */
export function billedChats(gateway: LocalGateway): { model?: string; promptTokens?: number; yuan: number }[] {
  return gateway
    .stats()
    .keys.flatMap((key) => key.billed)
    .filter((entry) => entry.kind === "chat");
}
