/** Rows as aligned columns under a header; the columns named in `right` are right-aligned. */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  right: readonly number[] = [],
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    widths
      .map((width, column) => {
        const cell = cells[column] ?? "";
        return right.includes(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
