import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { summarizeError } from "../run/error-summary.js";
import { writeJsonFile } from "../run/write-run-files.js";
import type { ON_ITEM_ERROR } from "../schema/step-schemas.js";
import { forEachConcurrent } from "./for-each-concurrent.js";
import { ItemResults, type ItemResult } from "./item-results.js";
import type { ItemsError } from "./items-error.js";
import { readItems, itemsFormatOf, type Item, type ItemsFormat } from "./read-items.js";

/** The file of a batch run that says which items file it maps and how far it got. */
export const BATCH_FILE = "batch.json";

// How often batch.json's counts are refreshed while items run.
const PROGRESS_SAVE_MS = 1000;

/** Options of `runBatch`. */
export interface BatchOptions {
  /** The JSONL or CSV file of items. */
  readonly itemsFile: string;
  /** Default: from the file's extension. */
  readonly format?: ItemsFormat;
  /** The run directory: `outputs.jsonl` and `batch.json` go here. An existing one is resumed. */
  readonly runDir: string;
  /** Items in flight at once (>= 1). */
  readonly concurrency: number;
  /** fail: the first failed item stops the batch (resumably); skip/collect: record it and go on. */
  readonly onItemError: (typeof ON_ITEM_ERROR)[number];
  /** Stops pulling items; items in flight finish their current unit and stop. */
  readonly signal?: AbortSignal;
  /** Called after each item, and once the total is known. */
  readonly onProgress?: (progress: BatchProgress) => void;
  /** Errors that stop the whole batch whatever onItemError says (a budget stop). Default: none. */
  readonly haltsBatch?: (error: unknown) => boolean;
  /** Errors that mean an item waits for a person (an approval): it stays undone, for a resume to finish. Default: none. */
  readonly waits?: (error: unknown) => boolean;
  /**
   * Runs one item and returns its output, which is written to `outputs.jsonl`. It may call `release`
   * once its calls are done, so the next item starts while it finishes its bookkeeping.
   */
  readonly runItem: (item: Item, signal: AbortSignal | undefined, release: () => void) => Promise<unknown>;
}

/** How far a batch is. `done` and `failed` count earlier attempts of a resumed run too. */
export interface BatchProgress {
  readonly total: number;
  readonly done: number;
  readonly failed: number;
}

/** How a batch ended. */
export interface BatchSummary extends BatchProgress {
  /** True when the signal stopped it before every item was tried; resume finishes it. */
  readonly stopped: boolean;
  /** Items of this attempt left waiting for a decision (not done, not failed); resume finishes them. */
  readonly waiting: number;
  /** The results file: one JSON line per finished item, `{ index, line, state, output | error }`. */
  readonly resultsFile: string;
}

/**
 * Maps `runItem` over an items file with flat memory: rows are streamed, at most `concurrency` are
 * in flight, and each output is appended to `outputs.jsonl` as soon as it exists. A resumed run
 * skips the items already done there. With onItemError `fail` the first failure is thrown after
 * the items in flight finish; otherwise failures are recorded with `state: "failed"`.
 */
export async function runBatch(options: BatchOptions): Promise<BatchSummary> {
  const format = itemsFormatOf(options.itemsFile, options.format);
  const itemsFile = resolve(options.itemsFile);
  const total = await countItems(itemsFile, format, options.signal);
  const results = await ItemResults.open(options.runDir);
  const progress = (): BatchProgress => ({ total, done: results.doneCount, failed: results.failedCount });
  // `pid` lets `svc-flow runs` tell a batch still going from one whose process died.
  const writeBatchFile = (state: BatchFile["state"]) => {
    const content: BatchFile = { version: 1, itemsFile, format, state, pid: process.pid, ...progress() };
    return writeJsonFile(join(options.runDir, BATCH_FILE), content);
  };
  await writeBatchFile("running");
  options.onProgress?.(progress());

  let savedAtMs = Date.now();
  let saving: Promise<void> = Promise.resolve();
  const record = async (result: ItemResult) => {
    await results.append(result);
    options.onProgress?.(progress());
    if (Date.now() - savedAtMs >= PROGRESS_SAVE_MS) {
      savedAtMs = Date.now();
      saving = saving.then(() => writeBatchFile("running")).catch(() => undefined);
    }
  };
  const invalid: Promise<void>[] = [];
  const onInvalidItem =
    options.onItemError === "fail"
      ? undefined
      : (error: ItemsError, index: number) => {
          if (!results.isDone(index))
            invalid.push(record({ index, line: error.line, state: "failed", error: summarizeError(error) }));
        };
  const pending = skipDone(readItems(itemsFile, { format, signal: options.signal, onInvalidItem }), results);

  let finished = false;
  let waiting = 0;
  try {
    finished = await forEachConcurrent(
      pending,
      async (item, release) => {
        let output: unknown;
        try {
          output = await options.runItem(item, options.signal, release);
        } catch (error) {
          // A stop is not the item's failure: it stays undone and runs again on resume.
          if (options.signal?.aborted) return;
          if (options.waits?.(error) === true) {
            waiting++;
            return;
          }
          if (options.onItemError === "fail" || options.haltsBatch?.(error) === true) throw error;
          await record({ index: item.index, line: item.line, state: "failed", error: summarizeError(error) });
          return;
        }
        await record({ index: item.index, line: item.line, state: "done", output });
      },
      { concurrency: options.concurrency, signal: options.signal },
    );
    await Promise.all(invalid);
  } catch (error) {
    await results.close();
    await saving;
    await writeBatchFile(options.signal?.aborted ? "stopped" : "failed");
    throw error;
  }
  await results.close();
  await saving;
  const stopped = !finished || options.signal?.aborted === true;
  await writeBatchFile(stopped ? "stopped" : waiting > 0 ? "waiting" : results.failedCount > 0 ? "failed" : "done");
  return { ...progress(), stopped, waiting, resultsFile: results.file };
}

async function* skipDone(items: AsyncIterable<Item>, results: ItemResults): AsyncGenerator<Item> {
  for await (const item of items) if (!results.isDone(item.index)) yield item;
}

// Counted up front (a fast streaming pass) so progress has a total and an ETA from the start.
async function countItems(file: string, format: ItemsFormat, signal: AbortSignal | undefined): Promise<number> {
  let count = 0;
  for await (const _item of readItems(file, { format, signal, onInvalidItem: () => count++ })) count++;
  return count;
}

/** What batch.json holds. */
export interface BatchFile extends BatchProgress {
  readonly version: 1;
  readonly itemsFile: string;
  readonly format: ItemsFormat;
  readonly state: "running" | "done" | "failed" | "stopped" | "waiting";
  /** The process running the batch, so a listing can tell a live batch from a dead one. */
  readonly pid: number;
}

/** Reads `batch.json` from a run directory; undefined when the run is not a batch (or has not started one). */
export async function readBatchFile(runDir: string): Promise<Partial<BatchFile> | undefined> {
  try {
    return JSON.parse(await readFile(join(runDir, BATCH_FILE), "utf8")) as Partial<BatchFile>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
