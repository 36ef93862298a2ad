import { createReadStream } from "node:fs";
import { extname } from "node:path";
import { createInterface } from "node:readline";
import { AbortedError } from "../../errors.js";
import { CsvParser } from "./csv-parser.js";
import { ItemsError } from "./items-error.js";

/** The file formats an items file may have. */
export const ITEMS_FORMATS = ["jsonl", "csv"] as const;
/** An items file format. */
export type ItemsFormat = (typeof ITEMS_FORMATS)[number];

/** One row of an items file. */
export interface Item {
  /** 0-based position among the file's records (blank lines not counted); stable across runs. */
  readonly index: number;
  /** 1-based line the record starts on. */
  readonly line: number;
  /** The parsed JSON value (JSONL), or an object of the header's columns to strings (CSV). */
  readonly value: unknown;
}

/** Options of `readItems`. */
export interface ReadItemsOptions {
  /** Default: from the extension (.jsonl/.ndjson, .csv). */
  readonly format?: ItemsFormat;
  /** Stops reading: the iterator throws AbortedError. */
  readonly signal?: AbortSignal;
  /**
   * Called with a record that cannot be read (a JSONL line that is not JSON, a CSV row of the wrong
   * width), which is then left out; its index is still used up. Default: the error is thrown.
   */
  readonly onInvalidItem?: (error: ItemsError, index: number) => void;
  /** Bytes read at a time. Default 64 KiB. */
  readonly highWaterMark?: number;
}

/** The format an items file has by its extension; throws ItemsError naming the fix when unknown. */
export function itemsFormatOf(file: string, format?: ItemsFormat): ItemsFormat {
  if (format !== undefined) return format;
  const extension = extname(file).toLowerCase();
  if (extension === ".jsonl" || extension === ".ndjson") return "jsonl";
  if (extension === ".csv") return "csv";
  throw new ItemsError(
    file,
    0,
    `Cannot tell the format from the extension "${extension}". Name the file .jsonl or .csv, or give the format.`,
  );
}

/**
 * Reads an items file as a stream, one record at a time: memory stays flat however long the file.
 * JSONL: one JSON value a line, blank lines skipped. CSV: RFC 4180 with a header row; each row
 * becomes an object of strings keyed by the header. Errors name file and line.
 */
export function readItems(file: string, options: ReadItemsOptions = {}): AsyncGenerator<Item> {
  const format = itemsFormatOf(file, options.format);
  return format === "csv" ? readCsv(file, options) : readJsonl(file, options);
}

async function* readJsonl(file: string, options: ReadItemsOptions): AsyncGenerator<Item> {
  const stream = openStream(file, options);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  let index = 0;
  try {
    for await (const text of lines) {
      line++;
      const trimmed = (line === 1 ? text.replace(/^\uFEFF/, "") : text).trim();
      if (trimmed === "") continue;
      const itemIndex = index++;
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (error) {
        const problem = new ItemsError(
          file,
          line,
          `Not a JSON value (${(error as Error).message}). Each line holds one JSON value.`,
          { cause: error },
        );
        if (options.onInvalidItem === undefined) throw problem;
        options.onInvalidItem(problem, itemIndex);
        continue;
      }
      yield { index: itemIndex, line, value };
    }
  } catch (error) {
    throw readError(file, error, options.signal);
  } finally {
    lines.close();
    stream.destroy();
  }
}

async function* readCsv(file: string, options: ReadItemsOptions): AsyncGenerator<Item> {
  const stream = openStream(file, options);
  const parser = new CsvParser(file);
  let header: string[] | undefined;
  let index = 0;
  const toItems = function* (records: ReturnType<CsvParser["push"]>): Generator<Item> {
    for (const record of records) {
      if (header === undefined) {
        header = checkHeader(file, record.fields, record.line);
        continue;
      }
      const itemIndex = index++;
      if (record.fields.length !== header.length) {
        const problem = new ItemsError(
          file,
          record.line,
          `Expected ${header.length} fields, as in the header, got ${record.fields.length}. Quote fields that hold commas.`,
        );
        if (options.onInvalidItem === undefined) throw problem;
        options.onInvalidItem(problem, itemIndex);
        continue;
      }
      const value: Record<string, string> = {};
      for (const [column, name] of header.entries()) value[name] = record.fields[column]!;
      yield { index: itemIndex, line: record.line, value };
    }
  };
  try {
    for await (const chunk of stream) yield* toItems(parser.push(chunk as string));
    yield* toItems(parser.end());
  } catch (error) {
    throw readError(file, error, options.signal);
  } finally {
    stream.destroy();
  }
}

function openStream(file: string, options: ReadItemsOptions) {
  options.signal?.throwIfAborted();
  return createReadStream(file, {
    encoding: "utf8",
    highWaterMark: options.highWaterMark ?? 64 * 1024,
    signal: options.signal,
  });
}

function checkHeader(file: string, names: string[], line: number): string[] {
  const seen = new Set<string>();
  for (const name of names) {
    if (name.trim() === "")
      throw new ItemsError(file, line, "A header column has no name. Name every column in the first row.");
    if (seen.has(name))
      throw new ItemsError(file, line, `The header names "${name}" twice. Column names must be unique.`);
    seen.add(name);
  }
  return names;
}

function readError(file: string, error: unknown, signal: AbortSignal | undefined): unknown {
  if (error instanceof ItemsError) return error;
  if (signal?.aborted) return new AbortedError(`Stopped reading ${file}.`, { cause: error });
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT")
    return new ItemsError(file, 0, "No such file. Check the path (relative paths start from the current directory).", {
      cause: error,
    });
  if (code === "EISDIR")
    return new ItemsError(file, 0, "This is a directory. Give a .jsonl or .csv file.", { cause: error });
  return error;
}
