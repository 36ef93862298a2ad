import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvParser } from "../src/workflow/batch/csv-parser.js";
import { ItemsError } from "../src/workflow/batch/items-error.js";

function parse(chunks: readonly string[]): string[][] {
  const parser = new CsvParser("table.csv");
  const records = chunks.flatMap((chunk) => parser.push(chunk));
  return [...records, ...parser.end()].map((record) => record.fields);
}

// RFC 4180 writing: quote a field holding a comma, quote, CR or LF (and a lone empty field, which
// would otherwise be a blank line), doubling the quotes inside.
function writeCsv(table: readonly (readonly string[])[], lineBreak: string): string {
  const field = (value: string, alone: boolean) =>
    /[",\r\n]/.test(value) || (alone && value === "") ? `"${value.replaceAll('"', '""')}"` : value;
  return table.map((row) => row.map((value) => field(value, row.length === 1)).join(",")).join(lineBreak);
}

function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks;
}

describe("CsvParser", () => {
  it.each([
    [
      "plain fields",
      "a,b,c\n1,2,3\n",
      [
        ["a", "b", "c"],
        ["1", "2", "3"],
      ],
    ],
    [
      "no final line break",
      "a,b\n1,2",
      [
        ["a", "b"],
        ["1", "2"],
      ],
    ],
    [
      "CRLF line breaks",
      "a,b\r\n1,2\r\n",
      [
        ["a", "b"],
        ["1", "2"],
      ],
    ],
    [
      "CR line breaks",
      "a,b\r1,2\r",
      [
        ["a", "b"],
        ["1", "2"],
      ],
    ],
    [
      "a comma inside quotes",
      'name,note\nx,"one, two"\n',
      [
        ["name", "note"],
        ["x", "one, two"],
      ],
    ],
    [
      "a line break inside quotes",
      'a,b\n"line 1\nline 2",z\n',
      [
        ["a", "b"],
        ["line 1\nline 2", "z"],
      ],
    ],
    ["doubled quotes", 'a\n"say ""hi"""\n', [["a"], ['say "hi"']]],
    [
      "empty fields",
      "a,b,c\n,,\n",
      [
        ["a", "b", "c"],
        ["", "", ""],
      ],
    ],
    ["a quoted empty field alone", 'a\n""\n', [["a"], [""]]],
    ["blank lines skipped", "a\n\n1\n\r\n2\n", [["a"], ["1"], ["2"]]],
    [
      "a byte-order mark dropped",
      "\uFEFFid,name\n1,x\n",
      [
        ["id", "name"],
        ["1", "x"],
      ],
    ],
    ["non-ASCII text", "città,🙂\n", [["città", "🙂"]]],
  ])("parses %s", (_name, text, expected) => {
    expect(parse([text])).toEqual(expected);
  });

  it("gives each record the line it starts on, counting line breaks inside quotes", () => {
    const parser = new CsvParser("t.csv");
    const records = [...parser.push('a,b\n"x\ny",1\n\nlast,2\n'), ...parser.end()];
    expect(records.map((record) => record.line)).toEqual([1, 2, 5]);
  });

  it.each([
    ["a quote inside an unquoted field", 'a,b\nab"c,d\n', 2, /quote inside an unquoted field/],
    ["text after a closing quote", 'a\n"x"y\n', 2, /after a closing quote/],
    ["an unclosed quote", 'a,b\n1,2\n"open,\nmore\n', 3, /never closed/],
  ])("rejects %s, naming file and line", (_name, text, line, message) => {
    let caught: unknown;
    try {
      parse([text]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ItemsError);
    expect((caught as ItemsError).line).toBe(line);
    expect((caught as ItemsError).message).toMatch(new RegExp(`^table\\.csv:${line}: `));
    expect((caught as ItemsError).message).toMatch(message);
  });

  it("parses any RFC 4180 table back identically, however the text is split into chunks", () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "z", " ", ",", '"', "\n", "\r", "é", "🙂", "x") });
    const table = fc
      .integer({ min: 1, max: 4 })
      .chain((width) =>
        fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 6 }),
      );
    fc.assert(
      fc.property(
        table,
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (rows, lineBreak, trailing, cuts) => {
          const text = writeCsv(rows, lineBreak) + (trailing ? lineBreak : "");
          expect(parse(splitAt(text, cuts))).toEqual(rows);
        },
      ),
      { numRuns: 500 },
    );
  });
});
