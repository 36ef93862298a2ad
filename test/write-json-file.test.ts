import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CostEntry } from "../src/cost/cost-entry.js";
import { CostCallsFile } from "../src/workflow/run/cost-calls-file.js";
import { writeJsonFile } from "../src/workflow/run/write-run-files.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-json-file-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeJsonFile", () => {
  it("writes exactly JSON.stringify's indented text, a long list under a key included", async () => {
    const values: unknown[] = [
      {},
      [],
      "text",
      null,
      { empty: [], list: [1, { text: "two\nlines", gone: undefined }, null, undefined], nested: { list: [1] } },
      { calls: Array.from({ length: 20_000 }, (_, index) => ({ index, text: "x".repeat(80), tags: [index] })) },
      { at: new Date(0) },
      { byTag: { step: { a: { calls: 1 }, b: { list: [1, [2]], gone: undefined, empty: {} } }, none: {} }, n: 1 },
      [{ deep: { er: [{}] } }, "x"],
    ];
    for (const [index, value] of values.entries()) {
      const file = join(dir, `${index}.json`);
      await writeJsonFile(file, value);
      expect(await readFile(file, "utf8")).toBe(`${JSON.stringify(value, null, 2)}\n`);
    }
  });

  it("writes a list given as an async iterable as the array of its elements", async () => {
    async function* calls() {
      yield { index: 0 };
      yield { index: 1, tags: { step: "a" } };
    }
    async function* none() {}
    const file = join(dir, "streamed.json");
    await writeJsonFile(file, { total: 2, calls: calls(), empty: none() });
    const expected = { total: 2, calls: [{ index: 0 }, { index: 1, tags: { step: "a" } }], empty: [] };
    expect(await readFile(file, "utf8")).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it("masks a key in the text it writes", async () => {
    const file = join(dir, "cost.json");
    await writeJsonFile(file, { calls: [{ note: "echoed sk-live-0123456789abcdefghijklmnop" }] });
    expect(await readFile(file, "utf8")).not.toContain("sk-live-0123456789abcdefghijklmnop");
  });

  it("writes a calls file's entries as JSON.stringify would, each serialized once when it was added", async () => {
    const entry = (index: number): CostEntry => ({
      time: "2026-01-02T03:04:05.000Z",
      kind: "chat",
      modelRequested: "beta-4o-mini",
      promptTokens: index,
      completionTokens: 5,
      reasoningTokens: 0,
      images: 0,
      yuan: 0.0001,
      priceSource: "published",
      status: "ok",
      tags: { step: `lines[${index}].line` },
    });
    const earlier = [entry(0)];
    const calls = new CostCallsFile(dir);
    for (const each of earlier) calls.append(each);
    const added = Array.from({ length: 3_000 }, (_, index) => entry(index + 1));
    for (const each of added) calls.append(each);
    const file = join(dir, "cost.json");
    await writeJsonFile(file, { totalYuan: 1, calls: calls.calls(), after: { n: 1 } });
    const expected = { totalYuan: 1, calls: [...earlier, ...added], after: { n: 1 } };
    expect(await readFile(file, "utf8")).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    await mkdir(join(dir, "none"));
    const none = new CostCallsFile(join(dir, "none"));
    const empty = join(dir, "empty.json");
    await writeJsonFile(empty, { calls: none.calls() });
    expect(await readFile(empty, "utf8")).toBe(`${JSON.stringify({ calls: [] }, null, 2)}\n`);
  });
});
