import { createReadStream } from "node:fs";
import { open, stat, truncate, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { RowStates } from "./row-states.js";

/** The file of a batch run that holds one line per finished item, in finishing order. */
export const ITEM_RESULTS_FILE = "outputs.jsonl";

const itemResultSchema = z.object({
  index: z.int().nonnegative(),
  line: z.int().nonnegative(),
  state: z.enum(["done", "failed"]),
  output: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
/** One finished item: its output, or why it failed. */
export type ItemResult = z.infer<typeof itemResultSchema>;

/**
 * A batch run's results file, appended one line per item as each finishes, so outputs never pile
 * up in memory. Opening an existing file (a resumed run) reads back which items are done, keeping
 * only their states (a byte a row); a line torn by a crash is cut off. Failed items are tried again on resume.
 */
export class ItemResults {
  readonly file: string;
  readonly #states: RowStates;
  readonly #handle: FileHandle;
  /** Lines appended while a write is under way: the next write takes them all. */
  #queued: QueuedLine[] = [];
  #writing: Promise<void> | undefined;

  private constructor(file: string, handle: FileHandle, states: RowStates) {
    this.file = file;
    this.#handle = handle;
    this.#states = states;
  }

  /** Opens (or creates) `outputs.jsonl` in `runDir`. */
  static async open(runDir: string): Promise<ItemResults> {
    const file = join(runDir, ITEM_RESULTS_FILE);
    const { states, goodBytes, sizeBytes } = await readResults(file);
    if (goodBytes < sizeBytes) await truncate(file, goodBytes);
    return new ItemResults(file, await open(file, "a"), states);
  }

  /** Whether item `index` finished successfully (in this run or an earlier attempt). */
  isDone(index: number): boolean {
    return this.#states.isDone(index);
  }

  /** Items done so far. */
  get doneCount(): number {
    return this.#states.doneCount;
  }

  /** Items whose latest attempt failed. */
  get failedCount(): number {
    return this.#states.failedCount;
  }

  /** Appends a result; resolves once its line is written (the item then counts as finished). */
  append(result: ItemResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queued.push({ text: `${JSON.stringify(result)}\n`, result, resolve, reject });
      this.#writing ??= this.#writeQueued();
    });
  }

  // Lines go out in the order they came, those queued during a write together in the next: a write per line
  // held a fast batch to one thread-pool round trip a row, and the rows it could not keep up with waited in memory.
  async #writeQueued(): Promise<void> {
    while (this.#queued.length > 0) {
      const lines = this.#queued;
      this.#queued = [];
      try {
        await this.#handle.appendFile(lines.map((line) => line.text).join(""), "utf8");
      } catch (error) {
        for (const line of lines) line.reject(error);
        continue;
      }
      for (const { result, resolve } of lines) {
        this.#states.set(result.index, result.state);
        resolve();
      }
    }
    this.#writing = undefined;
  }

  /** Waits for pending writes and closes the file. */
  async close(): Promise<void> {
    await this.#writing;
    await this.#handle.close();
  }
}

interface QueuedLine {
  readonly text: string;
  readonly result: ItemResult;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Which items of the batch in `runDir` are done, as its results file says (none when there is none). */
export async function readItemStates(runDir: string): Promise<RowStates> {
  return (await readResults(join(runDir, ITEM_RESULTS_FILE))).states;
}

async function readResults(file: string): Promise<{ states: RowStates; goodBytes: number; sizeBytes: number }> {
  const states = new RowStates();
  let sizeBytes: number;
  try {
    sizeBytes = (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { states, goodBytes: 0, sizeBytes: 0 };
    throw error;
  }
  let goodBytes = 0;
  const stream = createReadStream(file, { encoding: "utf8" });
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      const end = goodBytes + Buffer.byteLength(text) + 1;
      const parsed = itemResultSchema.safeParse(parseJson(text));
      // The first unreadable or unterminated line is where a crash cut the file; nothing after it is trusted.
      if (!parsed.success || end > sizeBytes) break;
      goodBytes = end;
      states.set(parsed.data.index, parsed.data.state);
    }
  } finally {
    stream.destroy();
  }
  return { states, goodBytes, sizeBytes };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
