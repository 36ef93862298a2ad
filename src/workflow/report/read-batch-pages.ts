import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { ITEM_RESULTS_FILE } from "../batch/item-results.js";
import { readItems, type ItemsFormat } from "../batch/read-items.js";
import { readBatchFile } from "../batch/run-batch.js";
import type { ErrorSummary } from "../run/journal-records.js";
import { ITEMS_PAGE_SIZE, type BatchPage, type BatchRow } from "./render-batch-items.js";

type Result = Pick<BatchRow, "state" | "output" | "error">;

// Rows whose results are read at once: each window's lines are read by their place in outputs.jsonl, so a
// long batch's outputs are never all in memory and the file is parsed once more in all, not once a window.
const WINDOW_ROWS = 20 * ITEMS_PAGE_SIZE;

/** A result line's row and state, or undefined for a line that is JSON but not a row's result. */
function readResult(text: string): ({ index: number } & Result) | undefined {
  const parsed = JSON.parse(text) as { index?: unknown; state?: unknown; output?: unknown; error?: ErrorSummary };
  if (typeof parsed.index !== "number" || (parsed.state !== "done" && parsed.state !== "failed")) return undefined;
  return {
    index: parsed.index,
    state: parsed.state,
    output: parsed.output,
    ...(parsed.error === undefined ? {} : { error: parsed.error }),
  };
}

/**
 * Where each row's result is in outputs.jsonl: the byte offset and length of its line (length 0: no
 * result), the first `done` line of a row, else its last `failed` one (a row done in any attempt stays
 * done; a later failure of a resumed attempt does not undo it). Reading stops at the first unreadable
 * line, as a torn last line is.
 */
class ResultIndex {
  offsets = new Float64Array(1024);
  lengths = new Uint32Array(1024);
  done = new Uint8Array(1024);
  last = -1;

  static async read(file: string): Promise<ResultIndex> {
    const index = new ResultIndex();
    let stream;
    try {
      stream = createReadStream(file);
      let carry: Buffer = Buffer.alloc(0);
      // The file offset of carry's first byte.
      let base = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
        let start = 0;
        for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
          let result;
          try {
            result = readResult(data.toString("utf8", start, end));
          } catch {
            return index;
          }
          if (result !== undefined) index.#note(result.index, result.state === "done", base + start, end - start);
          start = end + 1;
        }
        carry = data.subarray(start);
        base += start;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    } finally {
      stream?.destroy();
    }
    return index;
  }

  #note(row: number, done: boolean, offset: number, length: number): void {
    if (row >= this.offsets.length) this.#grow(row + 1);
    if (this.done[row] === 1) return;
    this.offsets[row] = offset;
    this.lengths[row] = length;
    this.done[row] = done ? 1 : 0;
    this.last = Math.max(this.last, row);
  }

  #grow(size: number): void {
    const length = Math.max(size, this.offsets.length * 2);
    const grown = <T extends Float64Array | Uint32Array | Uint8Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.offsets = grown(this.offsets, new Float64Array(length));
    this.lengths = grown(this.lengths, new Uint32Array(length));
    this.done = grown(this.done, new Uint8Array(length));
  }

  has(row: number): boolean {
    return row < this.lengths.length && this.lengths[row]! > 0;
  }

  /** How many rows are done and failed. */
  counts(): { done: number; failed: number } {
    let done = 0;
    let failed = 0;
    for (let row = 0; row <= this.last; row++) {
      if (!this.has(row)) continue;
      if (this.done[row] === 1) done++;
      else failed++;
    }
    return { done, failed };
  }

  /** The results of rows `from` to `to - 1`, read from `file` in one read of the lines' span. */
  async results(file: FileHandle, from: number, to: number): Promise<Map<number, Result>> {
    const rows: number[] = [];
    for (let row = from; row < Math.min(to, this.last + 1); row++) if (this.has(row)) rows.push(row);
    const results = new Map<number, Result>();
    if (rows.length === 0) return results;
    const first = Math.min(...rows.map((row) => this.offsets[row]!));
    const end = Math.max(...rows.map((row) => this.offsets[row]! + this.lengths[row]!));
    // Rows finish about in row order, so a window's lines sit close together; far apart (a resumed
    // run), each line is read on its own rather than everything between them.
    const span = end - first;
    const needed = rows.reduce((sum, row) => sum + this.lengths[row]!, 0);
    const whole = span <= 4 * needed + 65_536 ? await readAt(file, first, span) : undefined;
    for (const row of rows) {
      const offset = this.offsets[row]!;
      const length = this.lengths[row]!;
      const bytes = whole?.subarray(offset - first, offset - first + length) ?? (await readAt(file, offset, length));
      const { index: _index, ...result } = readResult(bytes.toString("utf8"))!;
      results.set(row, result);
    }
    return results;
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  for (let read = 0; read < length; ) {
    const { bytesRead } = await file.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) throw new Error("outputs.jsonl is shorter than when it was read");
    read += bytesRead;
  }
  return buffer;
}

/**
 * A batch run's rows, page by page (`ITEMS_PAGE_SIZE` each), with each row's value from the items
 * file and its result from outputs.jsonl. Yields nothing for a run that is not a batch.
 */
export async function* readBatchPages(runDir: string): AsyncGenerator<BatchPage> {
  const batch = await readBatchFile(runDir);
  if (batch?.itemsFile === undefined) return;
  const file = join(runDir, ITEM_RESULTS_FILE);
  const index = await ResultIndex.read(file);
  const { done, failed } = index.counts();
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
  const handle = index.last >= 0 ? await open(file, "r") : undefined;
  let window = { from: 0, to: 0, results: new Map<number, Result>() };
  const resultOf = async (row: number): Promise<Result | undefined> => {
    if (handle === undefined) return undefined;
    if (row < window.from || row >= window.to) {
      const from = row - (row % WINDOW_ROWS);
      window = { from, to: from + WINDOW_ROWS, results: await index.results(handle, from, from + WINDOW_ROWS) };
    }
    return window.results.get(row);
  };
  let rows: BatchRow[] = [];
  let number = 1;
  // Rows up to here are on a page already.
  let shown = -1;
  try {
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
      for (let row = shown + 1; row <= index.last; row++) {
        const result = await resultOf(row);
        if (result === undefined) continue;
        rows.push({ index: row, line: 0, value: undefined, ...result });
        if (rows.length === ITEMS_PAGE_SIZE) {
          yield page(number++, rows);
          rows = [];
        }
      }
    }
    if (rows.length > 0 || number === 1) yield page(number, rows);
  } finally {
    await handle?.close();
  }
}
