import { Worker, type Job } from "bullmq";
import { Agent } from "undici";
import { GatewayClient } from "../../gateway/gateway-client.js";
import { Scheduler } from "../../scheduling/scheduler.js";
import { connectConfiguredGateway, type ConnectGateway, type ConnectGatewayOptions } from "../connect-gateway.js";
import type { MusicPolling } from "../kinds/music-kind.js";
import { summarizeError } from "../run/error-summary.js";
import { createLimiter } from "../run/limiter.js";
import { ITEM_ATTEMPTS, ITEM_QUEUE, itemQueue, queueConnection, type ItemJob } from "./item-queue.js";
import { ItemRunner, type ItemOutcome } from "./item-runner.js";
import { RunGate } from "./run-gate.js";
import { RunStore } from "./run-store.js";

/** Options of startItemWorker. */
export interface ItemWorkerOptions {
  /** The Redis every worker and enqueuer share, e.g. redis://10.0.0.5:6379. */
  readonly redisURL: string;
  /** The folder every worker shares (a network mount); run R's artifacts go to DIR/R/artifacts. */
  readonly artifactsDir: string;
  /** Items this worker runs at once. Default 8. */
  readonly concurrency?: number;
  /** Items started per minute across ALL workers (the fleet's share of the key's rpm); set on the queue. Default: unlimited. */
  readonly itemsPerMinute?: number;
  /** Items in flight across ALL workers; set on the queue. Default: unlimited. */
  readonly globalConcurrency?: number;
  /** How long a job's lock lasts without renewal: a dead worker's items run elsewhere after this. Default 30000. */
  readonly lockMs?: number;
  /** The gateway (default: SVC_BASE_URL / SVC_API_KEY). */
  readonly gateway?: ConnectGatewayOptions;
  /** Opens the gateway when `gateway` names none; the CLI's starts a local one. Default: the environment's, or a ConfigError. */
  readonly connect?: ConnectGateway;
  /** How music steps poll, as runWorkflow's `music`. Default: the music client's (first poll after 2 s). */
  readonly music?: MusicPolling;
  /** Called after each item, for a log. */
  readonly onItem?: (event: { runId: string; index: number; outcome: ItemOutcome | "failed"; error?: unknown }) => void;
}

/** A running worker. */
export interface ItemWorker {
  /** Stops taking items, lets those in flight finish (or go back to the queue), and disconnects. */
  close(): Promise<void>;
}

/**
 * The fixed-window rate limit that keeps any 60 s sliding window at or under `perMinute` starts:
 * a 60 s interval meets at most 61 one-second windows, so each gets `perMinute / 61`.
 */
export function rateWindow(perMinute: number): { max: number; durationMs: number } {
  if (!(perMinute >= 1)) throw new RangeError(`Expected items per minute to be >= 1, got ${perMinute}.`);
  if (perMinute >= 61) return { max: Math.floor(perMinute / 61), durationMs: 1000 };
  return { max: 1, durationMs: Math.ceil(61_000 / perMinute) };
}

/** Starts a worker that runs the items of distributed runs from the shared queue until closed. */
export async function startItemWorker(options: ItemWorkerOptions): Promise<ItemWorker> {
  const concurrency = options.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`Expected concurrency to be an integer >= 1, got ${concurrency}.`);
  const lockMs = options.lockMs ?? 30_000;
  const store = RunStore.connect(options.redisURL);
  const gate = new RunGate(store);
  const queueRedis = queueConnection(options.redisURL);
  const queue = itemQueue(queueRedis);
  if (options.itemsPerMinute !== undefined) {
    const window = rateWindow(options.itemsPerMinute);
    await queue.setGlobalRateLimit(window.max, window.durationMs);
  }
  if (options.globalConcurrency !== undefined) await queue.setGlobalConcurrency(options.globalConcurrency);
  const connection = await (options.connect ?? connectConfiguredGateway)(options.gateway ?? {});
  const agent = new Agent({ connections: Math.max(16, concurrency * 2) });
  // Each item's steps key their calls and journal their intents on their own view of it (createStepServices).
  const dispatcher = agent;
  const client = new GatewayClient({ apiKey: connection.apiKey, baseURL: connection.baseURL, dispatcher });
  const services = {
    client,
    scheduler: new Scheduler(),
    dispatcher,
    apiKey: connection.apiKey,
    baseURL: connection.baseURL,
    limit: createLimiter(concurrency),
    concurrency,
    artifactsDir: options.artifactsDir,
    ...(options.music === undefined ? {} : { music: options.music }),
  };
  const stop = new AbortController();
  const runners = new Map<string, Promise<ItemRunner>>();
  const runnerOf = (runId: string) => {
    let runner = runners.get(runId);
    if (runner === undefined) {
      runner = ItemRunner.open(store, runId, services);
      runners.set(runId, runner);
      runner.catch(() => runners.delete(runId));
    }
    return runner;
  };
  const process = async (job: Job<ItemJob>) => {
    const { runId, index } = job.data;
    try {
      const outcome = await (await runnerOf(runId)).run(index, stop.signal);
      options.onItem?.({ runId, index, outcome });
    } catch (error) {
      // The last attempt records the failure, so the run can finish (and resume can retry it).
      if (!stop.signal.aborted && job.attemptsMade + 1 >= ITEM_ATTEMPTS) {
        const summary = summarizeError(error);
        await store.finishItem(runId, { index, line: 0, state: "failed", error: summary });
        const spec = await store.spec(runId).catch(() => undefined);
        if (spec?.onItemError === "fail")
          await gate.halt(runId, { reason: "failed", index, error: summary, at: new Date().toISOString() });
      }
      options.onItem?.({ runId, index, outcome: "failed", error });
      throw error;
    }
  };
  const workerRedis = queueConnection(options.redisURL);
  const worker = new Worker<ItemJob>(ITEM_QUEUE, process, {
    connection: workerRedis,
    concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    // A job whose worker died is run again however often that happens: the store makes it count once.
    maxStalledCount: 1000,
  });
  worker.on("error", () => undefined);
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      stop.abort();
      await queue.close();
      // BullMQ leaves connections it was handed open.
      workerRedis.disconnect();
      queueRedis.disconnect();
      await client.close();
      await agent.close();
      await connection.close();
      await store.close();
    },
  };
}
