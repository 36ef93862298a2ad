// outputs.jsonl as a batch writes it: results appended while a write is under way go out together in the next
// write, in the order they came, and each append resolves only once its own line is in the file.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ITEM_RESULTS_FILE, ItemResults, readItemStates } from "../src/workflow/batch/item-results.js";
import { tempDir } from "./workflow-harness.js";

function result(index: number) {
  return { index, line: index + 2, state: index % 5 === 0 ? ("failed" as const) : ("done" as const), output: index };
}

describe("ItemResults", () => {
  it("writes results appended at once in their order, each resolved once its line is in the file", async () => {
    const runDir = await tempDir("svc-flow-results-");
    const results = await ItemResults.open(runDir);
    const file = join(runDir, ITEM_RESULTS_FILE);
    const checks = Array.from({ length: 500 }, (_, index) =>
      results.append(result(index)).then(async () => {
        const lines = (await readFile(file, "utf8")).split("\n");
        expect(JSON.parse(lines[index]!)).toMatchObject({ index });
        expect(results.isDone(index)).toBe(index % 5 !== 0);
      }),
    );
    await Promise.all(checks);
    await results.close();
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { index: number }).index)).toEqual([...Array(500).keys()]);
    const states = await readItemStates(runDir);
    expect([states.doneCount, states.failedCount]).toEqual([400, 100]);
  });

  it("rejects the appends of a write that failed, and keeps their items unfinished", async () => {
    const runDir = await tempDir("svc-flow-results-");
    const results = await ItemResults.open(runDir);
    await results.append(result(1));
    await results.close();
    // Writing to a closed file fails: the appends of that write reject, and none counts as done.
    const failed = await Promise.allSettled([results.append(result(2)), results.append(result(3))]);
    expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    expect([results.isDone(1), results.isDone(2), results.isDone(3)]).toEqual([true, false, false]);
  });
});
