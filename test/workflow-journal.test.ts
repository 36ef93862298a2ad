import { readFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readJournal, type JournalRecord } from "../src/workflow/index.js";
import { RunJournal } from "../src/workflow/run/run-journal.js";
import { tempDir } from "./workflow-harness.js";

const skipped = (n: number): Extract<JournalRecord, { type: "step-skipped" }> => ({
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

// A record whose line is about `bytes` long, of three-byte characters placed so that, as a file's
// first line, the reader's first 1 MiB read ends inside one of them.
function wideRecord(bytes: number, tag: string): JournalRecord {
  const head = Buffer.byteLength(JSON.stringify({ ...skipped(0), key: tag }).replace(`"${tag}"`, '"'));
  const fill = bytes - head - 2;
  const mib = 1024 * 1024;
  // ASCII padding before the first 漢 puts the boundary one byte into a character.
  const pad = (mib - head - tag.length - 1) % 3;
  const key = `${tag}${"a".repeat(pad)}${"漢".repeat(Math.floor((fill - tag.length - pad) / 3))}`;
  return { ...skipped(0), key, id: tag };
}

async function writeLines(file: string, text: string): Promise<void> {
  const handle = await open(file, "w");
  await handle.write(text);
  await handle.close();
}

describe("reading a journal", () => {
  it("reads lines longer than a read in order, a character split between two reads included", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const records = [wideRecord(1_500_000, "w1"), wideRecord(1_200_000, "w2"), skipped(3)];
    await writeLines(file, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
    const read = await readJournal(file);
    expect(read.tornTail).toBe(false);
    expect(read.records).toEqual(records);
  });

  it("drops a torn last line after long lines, and repair cuts exactly its bytes", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const whole = [wideRecord(1_100_000, "w1"), skipped(2)].map((record) => `${JSON.stringify(record)}\n`).join("");
    const torn = JSON.stringify(wideRecord(1_100_000, "w3")).slice(0, 700_000);
    await writeLines(file, whole + torn);
    const read = await readJournal(file, { repair: true });
    expect(read.tornTail).toBe(true);
    expect(read.records.map((record) => (record as { id: string }).id)).toEqual(["w1", "s2"]);
    expect(await readFile(file, "utf8")).toBe(whole);
  });

  it("names a damaged line by its number when it comes after a read boundary", async () => {
    const file = path.join(await tempDir(), "journal.jsonl");
    const long = `${JSON.stringify(wideRecord(1_300_000, "w1"))}\n`;
    await writeLines(file, `${long}${JSON.stringify(skipped(2))}\nnot json\n${JSON.stringify(skipped(4))}\n`);
    await expect(readJournal(file)).rejects.toThrow(`Line 3 of ${file} is not JSON`);
  });
});
