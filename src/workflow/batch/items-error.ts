import { ConfigError } from "../../errors.js";

/** An items file (JSONL or CSV) could not be read: names the file and line, and what to fix. */
export class ItemsError extends ConfigError {
  /** The file as the user named it. */
  readonly file: string;
  /** 1-based line of the offending record (0 when the problem is the whole file). */
  readonly line: number;

  constructor(file: string, line: number, message: string, options: { cause?: unknown } = {}) {
    super(`${line > 0 ? `${file}:${line}` : file}: ${message}`, { code: "invalid_items", cause: options.cause });
    this.file = file;
    this.line = line;
  }
}
