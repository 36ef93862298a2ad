import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { finished } from "node:stream/promises";
import path from "node:path";
import type { CostEntry } from "../../cost/cost-entry.js";
import { redactSecrets } from "../../errors.js";
import { JsonTextList } from "./write-run-files.js";

/** The run-directory file that holds an attempt's cost entries until cost.json is written from it. */
export const COST_CALLS_FILE = ".cost-calls.jsonl";

const BLOCK_CHARS = 64 * 1024;
/** Where cost.json's `calls` elements sit: the list is a top-level field. */
const CALL_INDENT = "    ";

/**
 * Every cost entry of a run attempt in the ledger's order (a resumed run's restored entries first),
 * so that cost.json's `calls` are streamed from disk and the ledger keeps none of them: a 100,000-row
 * batch holds no entry per row. Each entry is written as the text cost.json shows it (indented,
 * redacted), once: the end of the run copies that text, rather than reading each entry back and
 * serializing it again. Text goes to the file a block at a time (a write per entry would cost a map of
 * short calls more than the entry itself). Each attempt rewrites it; it is removed once cost.json has its calls.
 */
export class CostCallsFile {
  readonly file: string;
  readonly #stream: WriteStream;
  #failure: Error | undefined;
  #closing: Promise<void> | undefined;
  /** Lines not yet handed to the stream, and their length. */
  #pending: string[] = [];
  #pendingChars = 0;
  #count = 0;

  constructor(runDir: string, earlier: readonly CostEntry[]) {
    this.file = path.join(runDir, COST_CALLS_FILE);
    this.#stream = createWriteStream(this.file, { flags: "w" });
    // A write that fails is reported when the entries are read back, not as an unhandled error mid-run.
    this.#stream.on("error", (error) => {
      this.#failure ??= error;
    });
    for (const entry of earlier) this.append(entry);
  }

  /** Adds an entry (the ledger's onEntry). */
  append(entry: CostEntry): void {
    if (this.#failure !== undefined) return;
    const text = redactSecrets(JSON.stringify(entry, null, 2)).replaceAll("\n", `\n${CALL_INDENT}`);
    const line = `${this.#count === 0 ? "" : ",\n"}${CALL_INDENT}${text}`;
    this.#count++;
    this.#pending.push(line);
    this.#pendingChars += line.length;
    if (this.#pendingChars >= BLOCK_CHARS) this.#writePending();
  }

  #writePending(): void {
    if (this.#pending.length > 0) this.#stream.write(this.#pending.join(""));
    this.#pending = [];
    this.#pendingChars = 0;
  }

  /** cost.json's `calls`, oldest first: read from the file once writing it is finished. */
  calls(): JsonTextList {
    return new JsonTextList(CALL_INDENT, this.#count, () => this.#read());
  }

  async *#read(): AsyncGenerator<string> {
    await this.#close();
    if (this.#failure !== undefined) throw this.#failure;
    const stream = createReadStream(this.file, { encoding: "utf8" });
    try {
      for await (const chunk of stream) yield chunk as string;
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
