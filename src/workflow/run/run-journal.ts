import { existsSync, readdirSync, writeSync } from "node:fs";
import { open, truncate, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigError, redactSecrets } from "../../errors.js";
import { shellWord } from "../shell-word.js";
import { JOURNAL_FILE } from "./start-run-directory.js";
import { journalRecordSchema, type JournalRecord } from "./journal-records.js";

/** Where the engine journals finished work: a run's journal file, or a shared store (distributed runs). */
export interface JournalSink {
  /** Resolves once the record is durable. */
  append(record: JournalRecord): Promise<void>;
  /**
   * Resolves once the record is in the journal, where it outlives a kill of the process though not
   * yet a power loss (its fsync follows in the same group commit). A sink with no such earlier
   * point leaves it out, and `append` is used.
   */
  written?(record: JournalRecord): Promise<void>;
}

type Pending = {
  readonly line: string;
  /** Called once the line is written to the file, before its fsync. */
  readonly onWritten?: () => void;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
};

/**
 * The append-only journal of a run: each record is one line, on disk (fsynced) before it counts.
 * Lines are written from the event loop, in call order: a short append that the kernel takes into
 * its page cache without waiting for the disk, so a call's intent is in the file before its send
 * goes out, with no round trip through the thread pool (at 64 calls in flight that round trip held
 * each new send behind every answer that arrived with it). The fsync, which does wait for the disk,
 * runs in the pool as a group commit: lines written while one is under way share the next, since
 * an fsync per line caps a busy map at a few hundred lines a second.
 */
export class RunJournal implements JournalSink {
  readonly path: string;
  readonly #handle: FileHandle;
  /** Appended in this tick, written together at its end (or at once, by `written`). */
  #unwritten: Pending[] = [];
  /** Written, waiting for an fsync that starts after their write. */
  #unsynced: Pending[] = [];
  #writeQueued = false;
  #syncing: Promise<void> | undefined;
  #failure: unknown;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  /** Opens (creating) a journal for appending. */
  static async open(path: string): Promise<RunJournal> {
    return new RunJournal(path, await open(path, "a"));
  }

  /**
   * Appends a record; resolves once the fsync that covers its line is done. Lines go out in call
   * order, so a kill leaves at most a torn last line, which reading ignores. After a failed write
   * or fsync every append rejects with that failure.
   */
  append(record: JournalRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (!this.#enqueue(record, { resolve, reject }) || this.#writeQueued) return;
      this.#writeQueued = true;
      // Appends made in the same tick share the write.
      queueMicrotask(() => this.#write());
    });
  }

  /**
   * Appends a record and writes it to the file now (a kill of the process can no longer lose it),
   * without waiting for an fsync. For a call's intent: waiting for the disk before every send added
   * the fsync's latency (milliseconds, at times far more) to every call.
   */
  written(record: JournalRecord): Promise<void> {
    return new Promise<void>((onWritten, reject) => {
      if (this.#enqueue(record, { onWritten, resolve: () => {}, reject })) this.#write();
    });
  }

  /** Queues a record's line; false (and the record rejected) after a failure. */
  #enqueue(record: JournalRecord, pending: Omit<Pending, "line">): boolean {
    if (this.#failure !== undefined) {
      pending.reject(this.#failure);
      return false;
    }
    this.#unwritten.push({ line: `${JSON.stringify(record)}\n`, ...pending });
    return true;
  }

  #write(): void {
    this.#writeQueued = false;
    const batch = this.#unwritten;
    if (batch.length === 0) return;
    this.#unwritten = [];
    try {
      if (this.#failure !== undefined) throw this.#failure;
      // A step's output or an error may quote a server that echoed a key: the batch is redacted as one text.
      const bytes = Buffer.from(redactSecrets(batch.map((pending) => pending.line).join("")));
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.#handle.fd, bytes, offset);
    } catch (error) {
      this.#fail(error, batch);
      return;
    }
    for (const pending of batch) {
      pending.onWritten?.();
      this.#unsynced.push(pending);
    }
    this.#syncing ??= this.#sync();
  }

  async #sync(): Promise<void> {
    while (this.#unsynced.length > 0) {
      const batch = this.#unsynced;
      this.#unsynced = [];
      try {
        if (this.#failure !== undefined) throw this.#failure;
        await this.#handle.sync();
      } catch (error) {
        this.#fail(error, batch);
        continue;
      }
      for (const pending of batch) pending.resolve();
    }
    this.#syncing = undefined;
  }

  #fail(error: unknown, batch: readonly Pending[]): void {
    this.#failure ??= error;
    for (const pending of batch) pending.reject(this.#failure);
  }

  /** Writes and fsyncs pending lines, then closes the file. */
  async close(): Promise<void> {
    this.#write();
    while (this.#syncing !== undefined) await this.#syncing;
    await this.#handle.close();
  }
}

/** A journal as read back. */
export interface ReadJournal {
  readonly records: readonly JournalRecord[];
  /** Whether the last line was cut short (the process died while writing it). */
  readonly tornTail: boolean;
}

/** Reads a whole journal into a list of its records (see `forEachJournalRecord`). */
export async function readJournal(path: string, options: { repair?: boolean } = {}): Promise<ReadJournal> {
  const records: JournalRecord[] = [];
  const { tornTail } = await forEachJournalRecord(path, (record) => records.push(record), options);
  return { records, tornTail };
}

/** How much of the file is read at a time: the journal of a 100,000-row batch is over 100 MB. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Hands each record of a journal to `visit`, in order, reading the file a chunk at a time: its text
 * is never held whole (a string cannot pass 512 MiB, so a big batch's journal could not be read at
 * all), and a caller that keeps only what it needs holds only that. A last line without its newline
 * is a write the process did not finish: it is dropped (and cut from the file with `repair`, so
 * later appends start on a clean line). A bad line anywhere else means the file was damaged or
 * edited, which is an error.
 */
export async function forEachJournalRecord(
  path: string,
  visit: (record: JournalRecord) => void,
  options: { repair?: boolean } = {},
): Promise<{ readonly tornTail: boolean }> {
  const { tornTail, completeBytes } = await forEachJournalLine(path, (text, line) =>
    visit(parseRecord(text, line, path)),
  );
  if (tornTail && options.repair === true) await truncate(path, completeBytes);
  return { tornTail };
}

/**
 * Hands the text of each complete line of a journal to `visit` with its line number, reading the file
 * a chunk at a time (see `forEachJournalRecord`); what the text says is the caller's to judge, so a
 * lenient reader (`svc-flow runs`) can pass over a damaged line. The bytes after the last newline (a
 * torn write) are not handed on: `tornTail` says whether there were any, `completeBytes` where they start.
 */
export async function forEachJournalLine(
  path: string,
  visit: (text: string, line: number) => void,
): Promise<{ readonly tornTail: boolean; readonly completeBytes: number }> {
  const handle = await open(path, "r").catch((error: unknown) => {
    if ((error as { code?: unknown }).code === "ENOENT") {
      const dir = dirname(path);
      // `svc-flow resume runs`: the folder of run directories rather than one of them.
      const hint = holdsRuns(dir)
        ? ` ${dir} holds run directories: pass one of them (\`svc-flow runs --dir ${shellWord(dir)}\` lists them).`
        : " Pass the run directory that `svc-flow run` wrote.";
      throw new ConfigError(`There is no journal at ${path}.${hint}`, { code: "invalid_run_dir" });
    }
    throw error;
  });
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  // The bytes after the last newline read so far, and how many bytes came before them.
  let rest = Buffer.alloc(0);
  let complete = 0;
  let line = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      // Lines are cut at newline bytes, so a character split between two reads is decoded whole.
      const bytes = Buffer.concat([rest, chunk.subarray(0, bytesRead)]);
      let start = 0;
      for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
        line++;
        visit(bytes.toString("utf8", start, end), line);
        start = end + 1;
      }
      complete += start;
      rest = bytes.subarray(start);
    }
  } finally {
    await handle.close();
  }
  return { tornTail: rest.length > 0, completeBytes: complete };
}

const NEWLINE = 0x0a;

function parseRecord(text: string, line: number, path: string): JournalRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`Line ${line} of ${path} is not JSON; the journal was damaged. Start a new run.`, {
      code: "invalid_journal",
    });
  }
  const parsed = journalRecordSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(
      `Line ${line} of ${path} is not a journal record (${parsed.error.issues[0]?.message}). Start a new run.`,
      { code: "invalid_journal" },
    );
  }
  return parsed.data;
}

// Whether a folder holds run directories (each with a journal): the runs folder, not a run.
function holdsRuns(dir: string): boolean {
  try {
    return readdirSync(dir, { withFileTypes: true }).some(
      (entry) => entry.isDirectory() && existsSync(join(dir, entry.name, JOURNAL_FILE)),
    );
  } catch {
    return false;
  }
}
