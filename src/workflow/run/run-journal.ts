import { open, readFile, truncate, type FileHandle } from "node:fs/promises";
import { ConfigError } from "../../errors.js";
import { journalRecordSchema, type JournalRecord } from "./journal-records.js";

/** Where the engine journals finished work: a run's journal file, or a shared store (distributed runs). */
export interface JournalSink {
  /** Resolves once the record is durable. */
  append(record: JournalRecord): Promise<void>;
}

/** The append-only journal of a run: each record is one line, written and fsynced before it counts. */
export class RunJournal implements JournalSink {
  readonly path: string;
  readonly #handle: FileHandle;
  #tail: Promise<void> = Promise.resolve();
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
   * Appends a record; resolves once the line is on disk. Lines go out in call order, one write
   * each, so a kill leaves at most a torn last line, which reading ignores.
   */
  append(record: JournalRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const write = this.#tail.then(async () => {
      if (this.#failure !== undefined) throw this.#failure;
      try {
        await this.#handle.write(line);
        await this.#handle.sync();
      } catch (error) {
        this.#failure = error;
        throw error;
      }
    });
    this.#tail = write.catch(() => undefined);
    return write;
  }

  /** Waits for pending lines, then closes the file. */
  async close(): Promise<void> {
    await this.#tail;
    await this.#handle.close();
  }
}

/** A journal as read back. */
export interface ReadJournal {
  readonly records: readonly JournalRecord[];
  /** Whether the last line was cut short (the process died while writing it). */
  readonly tornTail: boolean;
}

/**
 * Reads a journal. A last line without its newline is a write the process did not finish: it is
 * dropped (and cut from the file with `repair`, so later appends start on a clean line). A bad line
 * anywhere else means the file was damaged or edited, which is an error.
 */
export async function readJournal(path: string, options: { repair?: boolean } = {}): Promise<ReadJournal> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") {
      throw new ConfigError(`There is no journal at ${path}. Pass the run directory that \`svc-flow run\` wrote.`, { code: "invalid_run_dir" });
    }
    throw error;
  }
  const lines = text.split("\n");
  const last = lines.pop() ?? "";
  const tornTail = last !== "";
  if (tornTail && options.repair === true) await truncate(path, Buffer.byteLength(text) - Buffer.byteLength(last));
  const records = lines.map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ConfigError(`Line ${index + 1} of ${path} is not JSON; the journal was damaged. Start a new run.`, { code: "invalid_journal" });
    }
    const parsed = journalRecordSchema.safeParse(value);
    if (!parsed.success) {
      throw new ConfigError(`Line ${index + 1} of ${path} is not a journal record (${parsed.error.issues[0]?.message}). Start a new run.`, { code: "invalid_journal" });
    }
    return parsed.data;
  });
  return { records, tornTail };
}
