import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortedError } from "../src/errors.js";
import { ItemsError } from "../src/workflow/batch/items-error.js";
import { readItems, type Item, type ReadItemsOptions } from "../src/workflow/batch/read-items.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-items-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function collect(path: string, options?: ReadItemsOptions): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of readItems(path, options)) items.push(item);
  return items;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("readItems (JSONL)", () => {
  it("yields one value a line with stable indexes, skipping blank lines", async () => {
    const path = await file("a.jsonl", '{"id":1}\n\n  \n"two"\r\n[3]\n');
    expect(await collect(path)).toEqual([
      { index: 0, line: 1, value: { id: 1 } },
      { index: 1, line: 4, value: "two" },
      { index: 2, line: 5, value: [3] },
    ]);
  });

  it("rejects a line that is not JSON, naming file and line", async () => {
    const path = await file("bad.jsonl", '{"ok":1}\n{"broken":\n');
    const error = await failure(collect(path));
    expect(error).toBeInstanceOf(ItemsError);
    expect((error as ItemsError).message).toMatch(/bad\.jsonl:2: Not a JSON value/);
    expect((error as ItemsError).code).toBe("invalid_items");
  });

  it("reports and leaves out a bad line when onInvalidItem is given, keeping later indexes", async () => {
    const path = await file("skip.jsonl", "1\nnope\n3\n");
    const invalid: number[] = [];
    const items = await collect(path, { onInvalidItem: (_error, index) => invalid.push(index) });
    expect(invalid).toEqual([1]);
    expect(items.map((item) => [item.index, item.value])).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it("reads multi-byte text split across read chunks", async () => {
    const path = await file("utf8.jsonl", '\uFEFF{"t":"città 🙂"}\n{"t":"naïve"}\n');
    const items = await collect(path, { highWaterMark: 5 });
    expect(items.map((item) => item.value)).toEqual([{ t: "città 🙂" }, { t: "naïve" }]);
  });
});

describe("readItems (CSV)", () => {
  it("maps each row to an object keyed by the header", async () => {
    const path = await file("rows.csv", 'sku,title\nA-1,"Lamp, solar"\nB-2,"Say ""hi"""\n');
    expect(await collect(path, { highWaterMark: 4 })).toEqual([
      { index: 0, line: 2, value: { sku: "A-1", title: "Lamp, solar" } },
      { index: 1, line: 3, value: { sku: "B-2", title: 'Say "hi"' } },
    ]);
  });

  it("rejects a row whose width differs from the header, naming file and line", async () => {
    const path = await file("wide.csv", "a,b\n1,2\n1,2,3\n");
    const error = await failure(collect(path));
    expect((error as ItemsError).message).toMatch(/wide\.csv:3: Expected 2 fields, as in the header, got 3/);
  });

  it("rejects a header that names a column twice", async () => {
    const path = await file("dup.csv", "a,a\n1,2\n");
    expect(((await failure(collect(path))) as ItemsError).message).toMatch(/dup\.csv:1: The header names "a" twice/);
  });
});

describe("readItems (files)", () => {
  it("names the fix for an unknown extension", () => {
    expect(() => readItems(join(dir, "items.txt"))).toThrow(/Name the file \.jsonl or \.csv/);
  });

  it("reads a file of another extension when the format is given", async () => {
    const path = await file("items.txt", "1\n2\n");
    expect((await collect(path, { format: "jsonl" })).map((item) => item.value)).toEqual([1, 2]);
  });

  it("reports a missing file as ItemsError", async () => {
    const error = await failure(collect(join(dir, "missing.jsonl")));
    expect((error as ItemsError).message).toMatch(/missing\.jsonl: No such file/);
  });

  it("stops with AbortedError when the signal aborts mid-file", async () => {
    const path = await file(
      "long.jsonl",
      Array.from({ length: 5000 }, (_, index) => JSON.stringify({ index })).join("\n"),
    );
    const controller = new AbortController();
    let seen = 0;
    const error = await failure(
      (async () => {
        for await (const _item of readItems(path, { signal: controller.signal, highWaterMark: 256 })) {
          if (++seen === 10) controller.abort();
        }
      })(),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(seen).toBeLessThan(5000);
  });
});
