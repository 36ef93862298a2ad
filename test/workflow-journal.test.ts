import { readFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readJournal, type JournalRecord } from "../src/workflow/index.js";
import { RunJournal } from "../src/workflow/run/run-journal.js";
import { tempDir } from "./workflow-harness.js";

const skipped = (n: number): JournalRecord => ({
  type: "step-skipped",
  key: `s${n}`,
  id: `s${n}`,
  at: "2026-01-01T00:00:00.000Z",
});

async function fileHandlePrototype(file: string): Promise<{ sync(): Promise<void> }> {
  const handle = await open(file, "a");
  await handle.close();
  return Object.getPrototypeOf(handle) as { sync(): Promise<void> };
}

/** Spies on fsync, holding the first one until `releaseSync()` is called. */
async function holdFirstSync(file: string) {
  let release: () => void = () => {};
  const sync = vi
    .spyOn(await fileHandlePrototype(file), "sync")
    .mockImplementationOnce(() => new Promise<void>((resolve) => (release = resolve)));
  return { sync, releaseSync: () => release() };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("run journal", () => {
  it("commits lines appended during a write together, in order, each resolved only once its line is on disk", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const sync = vi.spyOn(await fileHandlePrototype(file), "sync");
    const journal = await RunJournal.open(file);
    await journal.append(skipped(0));
    expect(sync).toHaveBeenCalledTimes(1);
    // 200 appends at once: the first write takes what is queued, the rest wait for one more.
    const onDisk: boolean[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        journal.append(skipped(index + 1)).then(async () => {
          onDisk[index] = (await readFile(file, "utf8")).includes(`"key":"s${index + 1}"`);
        }),
      ),
    );
    expect(sync.mock.calls.length).toBeLessThanOrEqual(3);
    expect(onDisk.filter(Boolean)).toHaveLength(200);
    await journal.close();
    const { records, tornTail } = await readJournal(file);
    expect(tornTail).toBe(false);
    expect(records.map((record) => (record as { key: string }).key)).toEqual(
      Array.from({ length: 201 }, (_, index) => `s${index}`),
    );
  });

  it("resolves written() once the line is in the file, without waiting for its fsync", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const { sync, releaseSync } = await holdFirstSync(file);
    const journal = await RunJournal.open(file);
    let durable = false;
    const appended = journal.append(skipped(1)).then(() => (durable = true));
    await journal.written(skipped(2));
    expect(await readFile(file, "utf8")).toContain(`"key":"s2"`);
    expect(sync).toHaveBeenCalledTimes(1);
    expect(durable).toBe(false);
    releaseSync();
    await appended;
    expect(durable).toBe(true);
    await journal.close();
  });

  it("writes lines while an fsync is under way, and resolves them with the next fsync after it", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const { sync, releaseSync } = await holdFirstSync(file);
    const journal = await RunJournal.open(file);
    const first = journal.append(skipped(1));
    await vi.waitFor(() => expect(sync).toHaveBeenCalledTimes(1));
    let secondDurable = false;
    const second = journal.append(skipped(2)).then(() => (secondDurable = true));
    // The intent of a call is in the file while the first fsync still waits for the disk.
    await journal.written(skipped(3));
    await vi.waitFor(async () => expect(await readFile(file, "utf8")).toContain(`"key":"s2"`));
    expect(await readFile(file, "utf8")).toContain(`"key":"s3"`);
    expect(sync).toHaveBeenCalledTimes(1);
    releaseSync();
    await Promise.all([first, second]);
    expect(secondDurable).toBe(true);
    expect(sync).toHaveBeenCalledTimes(2);
    await journal.close();
    const { records } = await readJournal(file);
    expect(records.map((record) => (record as { key: string }).key)).toEqual(["s1", "s2", "s3"]);
  });

  it("puts a written() line in the file before it returns, after the lines appended before it", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const journal = await RunJournal.open(file);
    const appended = journal.append(skipped(1));
    const written = journal.written(skipped(2));
    // No await in between: the send that follows an intent does not wait for an I/O callback.
    expect(readFileSync(file, "utf8")).toBe(`${JSON.stringify(skipped(1))}\n${JSON.stringify(skipped(2))}\n`);
    await Promise.all([appended, written]);
    await journal.close();
  });

  it("rejects the lines of a failed write and every append after it", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const failure = new Error("disk full");
    vi.spyOn(await fileHandlePrototype(file), "sync").mockRejectedValueOnce(failure);
    const journal = await RunJournal.open(file);
    const first = journal.append(skipped(1));
    const second = journal.append(skipped(2));
    await expect(first).rejects.toBe(failure);
    await expect(second).rejects.toBe(failure);
    await expect(journal.append(skipped(3))).rejects.toBe(failure);
    await expect(journal.written(skipped(4))).rejects.toBe(failure);
    await journal.close();
  });
});
