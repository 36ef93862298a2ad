import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
});
