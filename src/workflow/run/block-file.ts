import { once } from "node:events";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { redactSecrets } from "../../errors.js";

const BLOCK_CHARS = 64 * 1024;

/**
 * A run-directory file that holds, until the end of an attempt, what the run would otherwise keep in
 * memory (cost entries, finished steps' totals), read back once when the end-of-run files are
 * written. Text goes to the file a block at a time (a write per entry would cost a map of short
 * calls more than the entry itself), redacted (secrets never reach the disk). Each attempt rewrites it.
 */
export class BlockFile {
  readonly file: string;
  readonly #stream: WriteStream;
  #failure: Error | undefined;
  #closing: Promise<void> | undefined;
  /** Text not yet handed to the stream, and its length. */
  #pending: string[] = [];
  #pendingChars = 0;

  constructor(file: string) {
    this.file = file;
    this.#stream = createWriteStream(this.file, { flags: "w" });
    // A write that fails is reported when the file is read back, not as an unhandled error mid-run.
    this.#stream.on("error", (error) => {
      this.#failure ??= error;
    });
  }

  /** Appends text (unless a write failed already: reading back reports that). */
  write(text: string): void {
    if (this.#failure !== undefined) return;
    this.#pending.push(text);
    this.#pendingChars += text.length;
    if (this.#pendingChars >= BLOCK_CHARS) this.#writePending();
  }

  /**
   * Resolves once the stream has written what it holds beyond its buffer. A caller writing in a tight
   * loop (a resume ending 100,000 finished steps at once) waits on it now and then, so the text does
   * not pile up in memory ahead of the disk.
   */
  async drained(): Promise<void> {
    if (this.#failure !== undefined || !this.#stream.writableNeedDrain) return;
    // A write error ends the wait; reading back reports it.
    await once(this.#stream, "drain").catch(() => undefined);
  }

  #writePending(): void {
    // Redacted a block at a time, not a write at a time: a write is whole text (an entry), so no secret spans two blocks.
    if (this.#pending.length > 0) this.#stream.write(redactSecrets(this.#pending.join("")));
    this.#pending = [];
    this.#pendingChars = 0;
  }

  /** Finishes writing, then reads the text back in pieces of any size. */
  async *chunks(): AsyncGenerator<string> {
    await this.#close();
    if (this.#failure !== undefined) throw this.#failure;
    const stream = createReadStream(this.file, { encoding: "utf8" });
    try {
      for await (const chunk of stream) yield chunk as string;
    } finally {
      stream.destroy();
    }
  }

  /** Finishes writing, then reads the text back a line at a time. */
  async *lines(): AsyncGenerator<string> {
    yield* createInterface({ input: Readable.from(this.chunks()), crlfDelay: Infinity });
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
