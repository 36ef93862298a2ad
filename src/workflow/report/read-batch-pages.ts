import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ITEM_RESULTS_FILE } from "../batch/item-results.js";
import { readItems, type ItemsFormat } from "../batch/read-items.js";
import { readBatchFile } from "../batch/run-batch.js";
import type { ErrorSummary } from "../run/journal-records.js";
import { ITEMS_PAGE_SIZE, type BatchPage, type BatchRow } from "./render-batch-items.js";

type Result = Pick<BatchRow, "state" | "output" | "error">;

// Rows whose results are held at once: outputs.jsonl is in finishing order, so pages in row order read it
// once per window of rows, and a long batch's outputs are never all in memory.
const WINDOW_ROWS = 20 * ITEMS_PAGE_SIZE;

/** Each line of outputs.jsonl that reads as a result, in file order, up to the first unreadable one. */
async function* resultLines(runDir: string): AsyncGenerator<{ index: number } & Result> {
  let stream;
  try {
    stream = createReadStream(join(runDir, ITEM_RESULTS_FILE), { encoding: "utf8" });
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      let parsed: { index?: unknown; state?: unknown; output?: unknown; error?: ErrorSummary };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        break;
      }
      if (typeof parsed.index !== "number" || (parsed.state !== "done" && parsed.state !== "failed")) continue;
      yield {
        index: parsed.index,
        state: parsed.state,
        output: parsed.output,
        ...(parsed.error === undefined ? {} : { error: parsed.error }),
      };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  } finally {
    stream?.destroy();
  }
}

/** The results of rows `from` to `to - 1`. A row done in any attempt stays done; a later failure of a resumed attempt does not undo it. */
async function readResults(runDir: string, from: number, to: number): Promise<Map<number, Result>> {
  const results = new Map<number, Result>();
  for await (const { index, ...result } of resultLines(runDir)) {
    if (index < from || index >= to || results.get(index)?.state === "done") continue;
    results.set(index, result);
  }
  return results;
}

/** How many rows are done and failed (done in any attempt counts as done), and the highest row index with a result. */
async function countResults(runDir: string): Promise<{ done: number; failed: number; last: number }> {
  // One byte a row (0 none, 1 failed, 2 done): counting needs each row's state, not its output.
  let states = new Uint8Array(1024);
  let last = -1;
  for await (const { index, state } of resultLines(runDir)) {
    if (index >= states.length) {
      const grown = new Uint8Array(Math.max(index + 1, states.length * 2));
      grown.set(states);
      states = grown;
    }
    states[index] = Math.max(states[index]!, state === "done" ? 2 : 1);
    last = Math.max(last, index);
  }
  let done = 0;
  let failed = 0;
  for (const state of states) {
    if (state === 2) done++;
    else if (state === 1) failed++;
  }
  return { done, failed, last };
}

/**
 * A batch run's rows, page by page (`ITEMS_PAGE_SIZE` each), with each row's value from the items
 * file and its result from outputs.jsonl. Yields nothing for a run that is not a batch.
 */
export async function* readBatchPages(runDir: string): AsyncGenerator<BatchPage> {
  const batch = await readBatchFile(runDir);
  if (batch?.itemsFile === undefined) return;
  const { done, failed, last } = await countResults(runDir);
  const total = batch.total ?? done + failed;
  const pages = Math.max(1, Math.ceil(total / ITEMS_PAGE_SIZE));
  const page = (number: number, rows: BatchRow[]): BatchPage => ({
    itemsFile: batch.itemsFile!,
    total,
    done,
    failed,
    page: number,
    pages,
    rows,
  });
  let window = { from: 0, to: 0, results: new Map<number, Result>() };
  const resultOf = async (index: number): Promise<Result | undefined> => {
    if (index < window.from || index >= window.to) {
      const from = index - (index % WINDOW_ROWS);
      window = { from, to: from + WINDOW_ROWS, results: await readResults(runDir, from, from + WINDOW_ROWS) };
    }
    return window.results.get(index);
  };
  let rows: BatchRow[] = [];
  let number = 1;
  // Rows up to here are on a page already.
  let shown = -1;
  try {
    const options = {
      ...(batch.format === undefined ? {} : { format: batch.format as ItemsFormat }),
      onInvalidItem: () => undefined,
    };
    for await (const item of readItems(batch.itemsFile, options)) {
      shown = item.index;
      rows.push({ index: item.index, line: item.line, value: item.value, ...(await resultOf(item.index)) });
      if (rows.length === ITEMS_PAGE_SIZE) {
        yield page(number++, rows);
        rows = [];
      }
    }
  } catch {
    // The items file moved or changed since the run: the rows are shown from their results alone.
    for (let from = shown + 1; from <= last; from += WINDOW_ROWS) {
      const results = await readResults(runDir, from, from + WINDOW_ROWS);
      for (const [index, result] of [...results].sort(([left], [right]) => left - right)) {
        rows.push({ index, line: 0, value: undefined, ...result });
        if (rows.length === ITEMS_PAGE_SIZE) {
          yield page(number++, rows);
          rows = [];
        }
      }
    }
  }
  if (rows.length > 0 || number === 1) yield page(number, rows);
}
