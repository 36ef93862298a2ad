import { ItemsError } from "./items-error.js";

/** One CSV record and the line it starts on. */
export interface CsvRecord {
  readonly fields: string[];
  readonly line: number;
}

enum State {
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
}

/**
 * An incremental RFC 4180 parser: feed text in chunks split anywhere, get back the records completed
 * so far. Fields may be quoted; inside quotes, commas, line breaks and doubled quotes are data.
 * Line breaks are CRLF, LF or CR. Blank lines are skipped; a leading byte-order mark is dropped.
 */
export class CsvParser {
  readonly #file: string;
  #state = State.FieldStart;
  #field = "";
  #fieldQuoted = false;
  #fields: string[] = [];
  #line = 1;
  #recordLine = 1;
  #quoteLine = 1;
  #previousWasCarriageReturn = false;
  #started = false;

  /** `file` names the source in error messages. */
  constructor(file: string) {
    this.#file = file;
  }

  /** Parses the next chunk; returns the records it completed. */
  push(chunk: string): CsvRecord[] {
    const records: CsvRecord[] = [];
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let index = 0;
    while (index < text.length) {
      const char = text[index]!;
      // The LF of a CRLF pair: the CR already counted the line (and ended the record, outside quotes).
      const crlfTail = char === "\n" && this.#previousWasCarriageReturn;
      this.#previousWasCarriageReturn = char === "\r";
      if (this.#state === State.Quoted) {
        if (char === '"') {
          this.#state = State.QuoteInQuoted;
          index++;
        } else if (char === "\n" || char === "\r") {
          this.#field += char;
          if (!crlfTail) this.#line++;
          index++;
        } else {
          const end = findNext(text, index, QUOTED_STOPS);
          this.#field += text.slice(index, end);
          index = end;
        }
        continue;
      }
      index++;
      if (this.#state === State.QuoteInQuoted && char === '"') {
        this.#field += '"';
        this.#state = State.Quoted;
      } else if (char === ",") {
        this.#endField();
      } else if (char === "\n" || char === "\r") {
        if (crlfTail) continue;
        this.#endRecord(records);
        this.#line++;
        this.#recordLine = this.#line;
      } else if (this.#state === State.QuoteInQuoted) {
        throw this.#error(
          this.#line,
          `Unexpected ${JSON.stringify(char)} after a closing quote. Double a quote inside a quoted field ("").`,
        );
      } else if (char === '"') {
        if (this.#state === State.Unquoted) {
          throw this.#error(
            this.#line,
            'A quote inside an unquoted field. Quote the whole field and double the quotes in it ("a ""b"" c").',
          );
        }
        this.#state = State.Quoted;
        this.#fieldQuoted = true;
        this.#quoteLine = this.#line;
      } else {
        // Copy the run of plain characters at once rather than one by one.
        const end = findNext(text, index, UNQUOTED_STOPS);
        this.#field += text.slice(index - 1, end);
        this.#state = State.Unquoted;
        index = end;
      }
    }
    return records;
  }

  /** Ends the input; returns the last record if the text did not end with a line break. */
  end(): CsvRecord[] {
    if (this.#state === State.Quoted) {
      throw this.#error(this.#quoteLine, "A quoted field is never closed. Add the closing quote.");
    }
    const records: CsvRecord[] = [];
    this.#endRecord(records);
    return records;
  }

  #endField(): void {
    this.#fields.push(this.#field);
    this.#field = "";
    this.#fieldQuoted = false;
    this.#state = State.FieldStart;
  }

  #endRecord(records: CsvRecord[]): void {
    const blank = this.#fields.length === 0 && this.#field === "" && !this.#fieldQuoted;
    if (!blank) {
      this.#endField();
      records.push({ fields: this.#fields, line: this.#recordLine });
    }
    this.#fields = [];
    this.#field = "";
    this.#fieldQuoted = false;
    this.#state = State.FieldStart;
  }

  #error(line: number, message: string): ItemsError {
    return new ItemsError(this.#file, line, message);
  }
}

const QUOTED_STOPS = new Set([34, 10, 13]);
const UNQUOTED_STOPS = new Set([34, 44, 10, 13]);

function findNext(text: string, from: number, stops: ReadonlySet<number>): number {
  for (let index = from; index < text.length; index++) {
    if (stops.has(text.charCodeAt(index))) return index;
  }
  return text.length;
}
