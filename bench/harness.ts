// Shared by every benchmark: median of repeated samples, and one table/JSON shape for the report.

/** One measured figure; `ratio` compares it with a baseline measured in the same run. */
export interface BenchRow {
  readonly bench: string;
  readonly case: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
  /** value / baseline, or the direction the bench states in `note`. */
  readonly ratio?: number;
  readonly note?: string;
}

/** A benchmark module's default export. */
export interface Bench {
  readonly name: string;
  run(options: { quick: boolean }): Promise<BenchRow[]>;
}

/** Median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs `sample` `repeats` times and returns the median of what it measured. */
export async function medianOf(repeats: number, sample: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let index = 0; index < repeats; index++) values.push(await sample());
  return median(values);
}

/** Client CPU time (user + system) spent inside `work`, in milliseconds. */
export async function cpuTimeMs(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Formats rows as an aligned text table. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ["bench", "case", "metric", "value", "unit", "baseline", "ratio", "note"];
  const body = rows.map((row) => [
    row.bench,
    row.case,
    row.metric,
    formatNumber(row.value),
    row.unit,
    row.baseline === undefined ? "" : formatNumber(row.baseline),
    row.ratio === undefined ? "" : `${row.ratio.toFixed(2)}x`,
    row.note ?? "",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}
