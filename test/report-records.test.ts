import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JournalRecord } from "../src/workflow/run/journal-records.js";
import { ReportRecords } from "../src/workflow/run/report-records.js";
import { RunJournal } from "../src/workflow/run/run-journal.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-report-records-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function finished(key: string, output: unknown): JournalRecord {
  const at = new Date(0).toISOString();
  return {
    type: "step-finished",
    key,
    id: key.slice(key.lastIndexOf(".") + 1),
    kind: "image",
    output,
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    attempts: 1,
    fallbacks: [],
    costYuan: 0,
    unpriced: false,
  };
}

const cost: JournalRecord = {
  type: "cost",
  entry: {
    time: new Date(0).toISOString(),
    kind: "chat",
    status: "ok",
    tags: { step: "items[0].blurb" },
    promptTokens: 1,
    completionTokens: 1,
    reasoningTokens: 0,
    images: 0,
    yuan: 0,
    priceSource: "published",
  },
};

describe("ReportRecords", () => {
  it("journals every record it is given while keeping only what the report reads", async () => {
    const journal = await RunJournal.open(join(dir, "journal.jsonl"));
    const kept = new ReportRecords(journal, [], { batchKey: "items" });
    const image = { artifact: "artifacts/items-150-poster.png", mime: "image/png" };
    const appended = [
      finished("items[3].blurb", { text: "first page" }),
      finished("items[150].blurb", { text: "later page, no media" }),
      finished("items[150].poster", { image }),
      cost,
    ];
    for (const record of appended) await kept.append(record);
    await journal.close();
    const lines = (await readFile(join(dir, "journal.jsonl"), "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line) as JournalRecord)).toEqual(appended);
    // A row past the first page keeps its media (its tile on a later page), not its text; costs are the ledger's.
    expect(kept.records.map((record) => ("key" in record ? record.key : record.type))).toEqual([
      "items[3].blurb",
      "items[150].poster",
    ]);
  });

  it("keeps every step record of a run that is not a batch, the earlier attempts' included", async () => {
    const journal = await RunJournal.open(join(dir, "journal.jsonl"));
    const earlier = [finished("items[150].blurb", { text: "a map called items" })];
    const kept = new ReportRecords(journal, earlier);
    await kept.append(finished("items[151].blurb", { text: "the next item" }));
    await journal.close();
    expect(kept.records.map((record) => ("key" in record ? record.key : record.type))).toEqual([
      "items[150].blurb",
      "items[151].blurb",
    ]);
  });
});
