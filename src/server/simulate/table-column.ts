import { formatNumber } from "./arithmetic.js";

/** A numeric column of a CSV table a tool returned, picked by the words of the prompt. */
export interface TableColumn {
  /** The column's header, e.g. "units". */
  readonly name: string;
  /** The sum as the calculator takes it, e.g. "412 + 388 + 455". */
  readonly sumExpression: string;
  readonly total: number;
  /** The row with the largest value: its first cell (e.g. the month) and the value. */
  readonly best: { readonly label: string; readonly value: number };
}

/**
 * The numeric column of a CSV text that the prompt names ("unit sales" picks `units`), or the
 * first numeric column; undefined when the text is not a table with a header and two rows.
 */
export function findTableColumn(text: string, prompt: string): TableColumn | undefined {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "");
  if (lines.length < 3 || !lines[0]!.includes(",")) return undefined;
  const header = lines[0]!.split(",").map((cell) => cell.trim());
  const rows = lines.slice(1).map((line) => line.split(",").map((cell) => cell.trim()));
  if (rows.some((row) => row.length !== header.length)) return undefined;
  const numeric = header.map((_, column) => column > 0 && rows.every((row) => /^-?\d+(?:\.\d+)?$/.test(row[column]!)));
  const words = prompt.toLowerCase();
  const named = header.findIndex(
    (name, column) => numeric[column] && words.includes(name.toLowerCase().replace(/s$/, "")),
  );
  const column = named >= 0 ? named : numeric.indexOf(true);
  if (column < 0) return undefined;
  const values = rows.map((row) => Number(row[column]));
  const total = values.reduce((sum, value) => sum + value, 0);
  const bestIndex = values.indexOf(Math.max(...values));
  return {
    name: header[column]!,
    sumExpression: values.map(formatNumber).join(" + "),
    total,
    best: { label: rows[bestIndex]![0]!, value: values[bestIndex]! },
  };
}
