import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import { createInterface } from "node:readline";

const BLOCK_CHARS = 64 * 1024;

/**
 * A run-directory file that holds what a run would otherwise keep in memory until its end (cost
 * entries, finished steps' totals), one JSON line each in the order appended, read back once when
 * the end-of-run files are written. Lines go to the file a block at a time (a write per value would
 * cost a map of short calls more than the value itself). Each attempt rewrites it.
 */
export class SpillFile<T> {
  readonly file: string;
  readonly #stream: WriteStream;
  #failure: Error | undefined;
  #closing: Promise<void> | undefined;
  /** Lines not yet handed to the stream, and their length. */
  #pending: string[] = [];
  #pendingChars = 0;

  constructor(file: string) {
    this.file = file;
    this.#stream = createWriteStream(this.file, { flags: "w" });
    // A write that fails is reported when the values are read back, not as an unhandled error mid-run.
    this.#stream.on("error", (error) => {
      this.#failure ??= error;
    });
  }

  /** Adds a value. */
  append(value: T): void {
    if (this.#failure !== undefined) return;
    const line = `${JSON.stringify(value)}\n`;
    this.#pending.push(line);
    this.#pendingChars += line.length;
    if (this.#pendingChars >= BLOCK_CHARS) this.#writePending();
  }

  #writePending(): void {
    if (this.#pending.length > 0) this.#stream.write(this.#pending.join(""));
    this.#pending = [];
    this.#pendingChars = 0;
  }

  /** Finishes writing, then reads the values back in the order appended. */
  async *values(): AsyncGenerator<T> {
    await this.#close();
    if (this.#failure !== undefined) throw this.#failure;
    const stream = createReadStream(this.file, { encoding: "utf8" });
    try {
      for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
        if (line !== "") yield JSON.parse(line) as T;
      }
    } finally {
      stream.destroy();
    }
  }

  /** Closes and deletes the file. */
  async remove(): Promise<void> {
    await this.#close();
    await rm(this.file, { force: true });
  }

  #close(): Promise<void> {
    if (this.#closing === undefined && this.#failure === undefined) this.#writePending();
    this.#closing ??= finished(this.#stream.end()).catch((error: unknown) => {
      this.#failure ??= error as Error;
    });
    return this.#closing;
  }
}
