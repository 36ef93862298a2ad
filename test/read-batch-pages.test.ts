import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readBatchPages } from "../src/workflow/report/read-batch-pages.js";
import type { BatchPage } from "../src/workflow/report/render-batch-items.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-batch-pages-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ROWS = 4_321;

// outputs.jsonl in finishing order: far from row order, with row 7 failed in a first attempt and done in a second,
// and row 11 done first and failed in a later attempt (a row done in any attempt stays done).
async function writeBatch(itemsFile: string): Promise<void> {
  const order = Array.from({ length: ROWS }, (_, index) => (index * 1_009) % ROWS);
  const lines = order.map((index) =>
    JSON.stringify(
      index === 3
        ? { index, line: index + 1, state: "failed", error: { code: "boom", message: "row 4 failed" } }
        : // Multi-byte text: results are found by their byte offsets in the file.
          {
            index,
            line: index + 1,
            state: "done",
            output: { n: index, ...(index % 97 === 0 ? { text: "é 漢字 🎈" } : {}) },
          },
    ),
  );
  lines.unshift(JSON.stringify({ index: 7, line: 8, state: "failed", error: { code: "early", message: "first try" } }));
  lines.push(JSON.stringify({ index: 11, line: 12, state: "failed", error: { code: "late", message: "later try" } }));
  // A torn last line (the process died while writing it) is left out.
  await writeFile(join(dir, "outputs.jsonl"), `${lines.join("\n")}\n{"index":5,"line":6,"state":"fai`);
  await writeFile(
    join(dir, "batch.json"),
    JSON.stringify({
      version: 1,
      itemsFile,
      format: "jsonl",
      state: "done",
      pid: 1,
      total: ROWS,
      done: ROWS - 1,
      failed: 1,
    }),
  );
}

async function pagesOf(): Promise<BatchPage[]> {
  const pages: BatchPage[] = [];
  for await (const page of readBatchPages(dir)) pages.push(page);
  return pages;
}

describe("readBatchPages", () => {
  it("gives every row its own result, pages in row order, however far apart the results are in outputs.jsonl", async () => {
    const itemsFile = join(dir, "rows.jsonl");
    await writeFile(
      itemsFile,
      `${Array.from({ length: ROWS }, (_, index) => JSON.stringify({ n: index })).join("\n")}\n`,
    );
    await writeBatch(itemsFile);
    const pages = await pagesOf();
    expect(pages).toHaveLength(Math.ceil(ROWS / 100));
    expect(pages[0]).toMatchObject({ total: ROWS, done: ROWS - 1, failed: 1, page: 1, pages: pages.length });
    const rows = pages.flatMap((page) => page.rows);
    expect(rows.map((row) => row.index)).toEqual(Array.from({ length: ROWS }, (_, index) => index));
    for (const row of rows) {
      if (row.index === 3) expect(row).toMatchObject({ state: "failed", error: { code: "boom" } });
      else expect(row).toMatchObject({ state: "done", output: { n: row.index }, value: { n: row.index } });
    }
    expect(rows[97]).toMatchObject({ output: { text: "é 漢字 🎈" } });
    expect(rows[7]).toMatchObject({ state: "done" });
    expect(rows[11]).toMatchObject({ state: "done" });
  });

  it("shows the rows from their results alone, in row order, when the items file is gone", async () => {
    await writeBatch(join(dir, "gone.jsonl"));
    const rows = (await pagesOf()).flatMap((page) => page.rows);
    expect(rows.map((row) => row.index)).toEqual(Array.from({ length: ROWS }, (_, index) => index));
    expect(rows[1_234]).toMatchObject({ state: "done", output: { n: 1_234 }, value: undefined });
  });
});
