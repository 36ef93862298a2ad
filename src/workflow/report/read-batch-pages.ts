import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ITEM_RESULTS_FILE } from "../batch/item-results.js";
import { readItems, type ItemsFormat } from "../batch/read-items.js";
import { readBatchFile } from "../batch/run-batch.js";
import type { ErrorSummary } from "../run/journal-records.js";
import { ITEMS_PAGE_SIZE, type BatchPage, type BatchRow } from "./render-batch-items.js";

type Result = Pick<BatchRow, "state" | "output" | "error">;

async function readResults(runDir: string): Promise<Map<number, Result>> {
  const results = new Map<number, Result>();
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
      // A row done in any attempt stays done; a later failure of a resumed attempt does not undo it.
      if (results.get(parsed.index)?.state === "done") continue;
      results.set(parsed.index, {
        state: parsed.state,
        output: parsed.output,
        ...(parsed.error === undefined ? {} : { error: parsed.error }),
      });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  } finally {
    stream?.destroy();
  }
  return results;
}

/**
 * A batch run's rows, page by page (`ITEMS_PAGE_SIZE` each), with each row's value from the items
 * file and its result from outputs.jsonl. Yields nothing for a run that is not a batch.
 */
export async function* readBatchPages(runDir: string): AsyncGenerator<BatchPage> {
  const batch = await readBatchFile(runDir);
  if (batch?.itemsFile === undefined) return;
  const results = await readResults(runDir);
  const total = batch.total ?? results.size;
  const pages = Math.max(1, Math.ceil(total / ITEMS_PAGE_SIZE));
  let done = 0;
  let failed = 0;
  for (const result of results.values()) {
    if (result.state === "done") done++;
    else failed++;
  }
  const page = (number: number, rows: BatchRow[]): BatchPage => ({
    itemsFile: batch.itemsFile!,
    total,
    done,
    failed,
    page: number,
    pages,
    rows,
  });
  let rows: BatchRow[] = [];
  let number = 1;
  const seen = new Set<number>();
  try {
    const options = {
      ...(batch.format === undefined ? {} : { format: batch.format as ItemsFormat }),
      onInvalidItem: () => undefined,
    };
    for await (const item of readItems(batch.itemsFile, options)) {
      seen.add(item.index);
      rows.push({ index: item.index, line: item.line, value: item.value, ...results.get(item.index) });
      if (rows.length === ITEMS_PAGE_SIZE) {
        yield page(number++, rows);
        rows = [];
      }
    }
  } catch {
    // The items file moved or changed since the run: the rows are shown from their results alone.
    for (const [index, result] of [...results].sort(([left], [right]) => left - right)) {
      if (seen.has(index)) continue;
      rows.push({ index, line: 0, value: undefined, ...result });
    }
  }
  if (rows.length > 0 || number === 1) yield page(number, rows);
}
