import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { PriceOverrides } from "../../catalog/prices.js";
import { ConfigError } from "../../errors.js";
import { batchSourceOf, resolveRunInputs } from "../batch/batch-run-body.js";
import { ItemsError } from "../batch/items-error.js";
import { readItems } from "../batch/read-items.js";
import type { Workflow } from "../load/load-workflow.js";
import { summarizeError } from "../run/error-summary.js";
import { RunDirLock } from "../run/run-dir-lock.js";
import { startRunDirectory } from "../run/start-run-directory.js";
import type { ON_ITEM_ERROR } from "../schema/step-schemas.js";
import { DISTRIBUTED_FILE } from "./distributed-file.js";
import { ItemApprovals } from "./item-approvals.js";
import { enqueueItems, itemQueue, queueConnection } from "./item-queue.js";
import { RunBudget } from "./run-budget.js";
import { RunGate } from "./run-gate.js";
import { checkPrices, RunPricing } from "./run-pricing.js";
import type { RunStore, StoredResult } from "./run-store.js";

/** Options of enqueueRun. */
export interface EnqueueRunOptions {
  /** The Redis the workers take items from. */
  readonly redisURL: string;
  /** Input values; text (as from `--input k=v`) is converted to each input's declared type. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** A .jsonl or .csv file: one item per row. Default: the workflow's `type: items` input. */
  readonly items?: string;
  /** The run directory on this machine, where outputs are assembled. */
  readonly outDir: string;
  /** Default `collect`: a failed item is recorded and the others go on; `fail`: the first failed item halts the run on every worker. */
  readonly onItemError?: (typeof ON_ITEM_ERROR)[number];
  /** The run's money cap across all workers. Default: the workflow's `budget.maxYuan`, else none. */
  readonly budgetYuan?: number;
  /** Prices laid over the published ones (a price file's content), stored with the run for every worker. Default: none. */
  readonly prices?: PriceOverrides;
  /** Under the budget, run calls to models without a price, on every worker. Default: the workflow's `budget.allowUnpriced`. */
  readonly allowUnpriced?: boolean;
  readonly signal?: AbortSignal;
}

/** A run handed to the workers. */
export interface EnqueuedRun {
  readonly runId: string;
  readonly runDir: string;
  readonly total: number;
}

/**
 * Starts a distributed run: stores the workflow, inputs and every item in Redis, then adds one job
 * per item (job id `runId-index`) to the queue the workers take from. Items are streamed, so a
 * large file is never held whole. Only batch runs (an items file) are distributed.
 */
export async function enqueueRun(
  store: RunStore,
  workflow: Workflow,
  options: EnqueueRunOptions,
): Promise<EnqueuedRun> {
  const inputs = resolveRunInputs(workflow, options.inputs, options.items);
  const source = batchSourceOf(workflow, inputs, options.items);
  if (source === undefined) {
    throw new ConfigError(
      `${workflow.file} has no items to spread over workers. Pass --items FILE (a .jsonl or .csv), or run it without --redis.`,
      { code: "invalid_workflow" },
    );
  }
  await access(source.itemsFile).catch((error: unknown) => {
    throw new ItemsError(
      source.itemsFile,
      0,
      "No such file. Check the path (--items is relative to the current directory).",
      { cause: error },
    );
  });
  const budgetYuan = options.budgetYuan ?? workflow.definition.budget?.maxYuan;
  if (budgetYuan !== undefined && !(budgetYuan > 0))
    throw new ConfigError(`Expected the budget to be above 0 yuan, got ${budgetYuan}.`);
  const prices = options.prices === undefined ? undefined : checkPrices(options.prices);
  const runDir = path.resolve(options.outDir);
  await mkdir(runDir, { recursive: true });
  // Held while the directory is made: the workers own the items from then on, through Redis.
  const lock = await RunDirLock.acquire(runDir, { takenHint: "Choose another --out." });
  const start = await startRunDirectory(workflow, {
    runDir,
    inputs,
    ...(budgetYuan === undefined ? {} : { budgetYuan }),
    takenHint: "Choose another --out.",
  }).finally(() => lock.release());
  const runId = start.runId;
  if (budgetYuan !== undefined) await new RunBudget(store, runId).setMax(budgetYuan);
  // Before the spec: a worker that sees the run prices it as enqueued, never by its own flags.
  await new RunPricing(store, runId).save({ prices, allowUnpriced: options.allowUnpriced });
  // Rows that do not parse are failed items from the start (as in a single-machine batch); no job runs them.
  const invalid: StoredResult[] = [];
  const rows = readItems(source.itemsFile, {
    format: source.format,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onInvalidItem: (error: ItemsError, index: number) =>
      invalid.push({ index, line: error.line, state: "failed", error: summarizeError(error) }),
  });
  const all = (await store.addItems(runId, rows)) + invalid.length;
  const onItemError = options.onItemError ?? "collect";
  await store.saveSpec({
    version: 1,
    start,
    workflowText: workflow.text,
    ...(source.inputName === undefined ? {} : { inputName: source.inputName }),
    total: all,
    onItemError,
    runDir,
    itemsFile: source.itemsFile,
    itemsFormat: source.format,
  });
  for (const result of invalid) await store.finishItem(runId, result);
  // Under `fail` a row that does not parse fails the run before any item starts, as on one machine.
  const [first] = invalid;
  const halted = onItemError === "fail" && first !== undefined;
  if (halted)
    await new RunGate(store).halt(runId, {
      reason: "failed",
      index: first.index,
      error: first.error ?? { code: "invalid_item", message: "The row does not parse." },
      at: new Date().toISOString(),
    });
  const skip = new Set(invalid.map((result) => result.index));
  await writeFile(
    path.join(runDir, DISTRIBUTED_FILE),
    `${JSON.stringify({ version: 1, runId, total: all }, null, 2)}\n`,
  );
  const connection = queueConnection(options.redisURL);
  const queue = itemQueue(connection);
  try {
    if (!halted) await enqueueItems(queue, runId, indexes(all, skip));
  } finally {
    await queue.close();
    connection.disconnect();
  }
  return { runId, runDir, total: all };
}

/** Options of reenqueueRun: what to retry, and settings that replace the run's stored ones. */
export interface ReenqueueRunOptions {
  /** Put failed items back too. Default true. */
  readonly retryFailed?: boolean;
  /** A new cap for every worker. Default: the run's. */
  readonly budgetYuan?: number;
  /** Prices that replace the run's stored ones as a whole (not merged with them). Default: the run's. */
  readonly prices?: PriceOverrides;
  /** Replaces the run's unpriced policy. Default: the run's. */
  readonly allowUnpriced?: boolean;
}

/**
 * Puts a run's unfinished items (and, with retryFailed, its failed ones) back on the queue, except
 * those waiting for a decision (`svc-flow approve` puts each back once answered; one whose question
 * timed out goes back, for its `onTimeout` to decide), and lets
 * workers start them again after a halt; the cap and pricing given replace the run's for every
 * worker, and what is not given stays as stored. Returns how many.
 */
export async function reenqueueRun(
  store: RunStore,
  runId: string,
  redisURL: string,
  options: ReenqueueRunOptions = {},
): Promise<number> {
  const spec = await store.spec(runId);
  const prices = options.prices === undefined ? undefined : checkPrices(options.prices);
  if (options.budgetYuan !== undefined) await new RunBudget(store, runId).setMax(options.budgetYuan);
  await new RunPricing(store, runId).save({ prices, allowUnpriced: options.allowUnpriced });
  await new RunGate(store).reopen(runId);
  if (options.retryFailed !== false) await store.clearFailed(runId);
  const approvals = new ItemApprovals(store);
  await approvals.releaseTimedOut(runId);
  const waiting = await approvals.waiting(runId);
  const missing = (await store.missing(runId, spec.total)).filter((index) => !waiting.has(index));
  const connection = queueConnection(redisURL);
  const queue = itemQueue(connection);
  try {
    return await enqueueItems(queue, runId, missing);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

function* indexes(total: number, skip: ReadonlySet<number>): Generator<number> {
  for (let index = 0; index < total; index++) if (!skip.has(index)) yield index;
}
