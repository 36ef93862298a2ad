import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ItemsError } from "../src/workflow/batch/items-error.js";
import type { ItemResult } from "../src/workflow/batch/item-results.js";
import type { Item } from "../src/workflow/batch/read-items.js";
import { runBatch, type BatchOptions } from "../src/workflow/batch/run-batch.js";

let dir: string;
let runDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-batch-"));
  runDir = join(dir, "run");
  await import("node:fs/promises").then((fs) => fs.mkdir(runDir));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function itemsFile(
  count: number,
  line: (index: number) => string = (index) => JSON.stringify({ n: index }),
): Promise<string> {
  const path = join(dir, "items.jsonl");
  await writeFile(path, Array.from({ length: count }, (_, index) => line(index)).join("\n") + "\n");
  return path;
}

async function results(): Promise<ItemResult[]> {
  const text = await readFile(join(runDir, "outputs.jsonl"), "utf8");
  return text.trim() === ""
    ? []
    : text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as ItemResult);
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));
const double = async (item: Item) => {
  await tick();
  return { doubled: (item.value as { n: number }).n * 2 };
};

function options(file: string, overrides: Partial<BatchOptions> = {}): BatchOptions {
  return { itemsFile: file, runDir, concurrency: 4, onItemError: "fail", runItem: double, ...overrides };
}

describe("runBatch", () => {
  it("writes one result line per item, with at most `concurrency` items in flight", async () => {
    const file = await itemsFile(50);
    let inFlight = 0;
    let most = 0;
    const summary = await runBatch(
      options(file, {
        concurrency: 3,
        runItem: async (item) => {
          most = Math.max(most, ++inFlight);
          const output = await double(item);
          inFlight--;
          return output;
        },
      }),
    );
    expect(summary).toMatchObject({ total: 50, done: 50, failed: 0, stopped: false });
    expect(most).toBe(3);
    const lines = await results();
    expect(lines.map((line) => line.index).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, index) => index),
    );
    expect(lines.find((line) => line.index === 7)).toEqual({
      index: 7,
      line: 8,
      state: "done",
      output: { doubled: 14 },
    });
    expect(JSON.parse(await readFile(join(runDir, "batch.json"), "utf8"))).toMatchObject({
      state: "done",
      total: 50,
      done: 50,
    });
  });

  it("starts the next item once a running one releases its slot, and still waits for the released one", async () => {
    const file = await itemsFile(2);
    let secondStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (secondStarted = resolve));
    const summary = await runBatch(
      options(file, {
        concurrency: 1,
        runItem: async (item, _signal, release) => {
          if (item.index === 1) secondStarted();
          else {
            release();
            // Holding its slot here would never let item 1 start.
            await started;
          }
          return { n: item.index };
        },
      }),
    );
    expect(summary).toMatchObject({ total: 2, done: 2, failed: 0, stopped: false });
    expect((await results()).map((result) => result.index).sort()).toEqual([0, 1]);
  });

  it("stops on the signal and resumes without running finished items again", async () => {
    const file = await itemsFile(40);
    const controller = new AbortController();
    const ran: number[] = [];
    const first = await runBatch(
      options(file, {
        signal: controller.signal,
        runItem: async (item, signal) => {
          ran.push(item.index);
          if (ran.length === 10) controller.abort();
          await tick();
          signal?.throwIfAborted();
          return double(item);
        },
      }),
    );
    expect(first.stopped).toBe(true);
    expect(first.done).toBeLessThan(40);
    const doneFirst = new Set((await results()).map((line) => line.index));
    expect(JSON.parse(await readFile(join(runDir, "batch.json"), "utf8"))).toMatchObject({ state: "stopped" });

    const rerun: number[] = [];
    const second = await runBatch(options(file, { runItem: async (item) => (rerun.push(item.index), double(item)) }));
    expect(second).toMatchObject({ total: 40, done: 40, stopped: false });
    expect(rerun.filter((index) => doneFirst.has(index))).toEqual([]);
    expect(rerun.length).toBe(40 - doneFirst.size);
    const indexes = (await results()).map((line) => line.index).sort((a, b) => a - b);
    expect(indexes).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });

  it("collect: records a failed item and goes on; resume tries it again", async () => {
    const file = await itemsFile(10);
    const failing = async (item: Item) => {
      if (item.index === 4) throw new Error("model said no");
      return double(item);
    };
    const first = await runBatch(options(file, { onItemError: "collect", runItem: failing }));
    expect(first).toMatchObject({ done: 9, failed: 1, stopped: false });
    expect((await results()).find((line) => line.index === 4)).toEqual({
      index: 4,
      line: 5,
      state: "failed",
      error: { code: "error", message: "model said no" },
    });
    const retried: number[] = [];
    const second = await runBatch(
      options(file, { onItemError: "collect", runItem: async (item) => (retried.push(item.index), double(item)) }),
    );
    expect(retried).toEqual([4]);
    expect(second).toMatchObject({ done: 10, failed: 0 });
  });

  it("fail: the first failed item fails the batch after the items in flight finish, keeping what is done", async () => {
    const file = await itemsFile(10);
    const error = await runBatch(
      options(file, {
        concurrency: 2,
        runItem: async (item) => {
          if (item.index === 5) throw new Error("broken item");
          return double(item);
        },
      }),
    ).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe("broken item");
    const done = (await results()).filter((line) => line.state === "done").map((line) => line.index);
    expect(done).toEqual(expect.arrayContaining([0, 1, 2, 3, 4]));
    expect(JSON.parse(await readFile(join(runDir, "batch.json"), "utf8"))).toMatchObject({ state: "failed" });
  });

  it("collect: a row that cannot be read is recorded as failed, naming its line", async () => {
    const file = await itemsFile(4, (index) => (index === 2 ? "{oops" : JSON.stringify({ n: index })));
    const summary = await runBatch(options(file, { onItemError: "collect" }));
    expect(summary).toMatchObject({ total: 4, done: 3, failed: 1 });
    const bad = (await results()).find((line) => line.index === 2)!;
    expect(bad.state).toBe("failed");
    expect(bad.error?.code).toBe("invalid_items");
    expect(bad.error?.message).toMatch(/items\.jsonl:3: Not a JSON value/);
  });

  it("fail: a row that cannot be read fails the batch with ItemsError", async () => {
    const file = await itemsFile(4, (index) => (index === 2 ? "{oops" : JSON.stringify({ n: index })));
    await expect(runBatch(options(file))).rejects.toBeInstanceOf(ItemsError);
  });

  it("cuts a result line torn by a crash and runs that item again", async () => {
    const file = await itemsFile(3);
    await writeFile(
      join(runDir, "outputs.jsonl"),
      `${JSON.stringify({ index: 0, line: 1, state: "done", output: 1 })}\n`,
    );
    await appendFile(join(runDir, "outputs.jsonl"), '{"index":1,"line":2,"sta');
    const ran: number[] = [];
    const summary = await runBatch(options(file, { runItem: async (item) => (ran.push(item.index), double(item)) }));
    expect(ran.sort()).toEqual([1, 2]);
    expect(summary.done).toBe(3);
    expect((await results()).map((line) => line.index)).toEqual([0, expect.any(Number), expect.any(Number)]);
  });
});
