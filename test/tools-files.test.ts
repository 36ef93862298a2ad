import { mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, SvcFlowError, ToolInputError } from "../src/errors.js";
import { createListFilesTool } from "../tools/list-files.js";
import { createReadFileTool } from "../tools/read-file.js";
import { resolveWorkspacePath } from "../tools/support/workspace-path.js";
import { createWriteFileTool } from "../tools/write-file.js";

let root: string;
let workspace: string;
let outside: string;

async function rejection(promise: Promise<unknown>): Promise<SvcFlowError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcFlowError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "svc-flow-tools-")));
  workspace = path.join(root, "ws");
  outside = path.join(root, "outside");
  await mkdir(path.join(workspace, "data", "nested"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "TOP-SECRET");
  await writeFile(path.join(workspace, "data", "sales.csv"), "region,amount\nnorth,10\nsouth,20\n");
  await writeFile(path.join(workspace, "data", "config.json"), '{"currency":"CNY","items":[1,2,3]}');
  await writeFile(path.join(workspace, "data", "nested", "deep.txt"), "deep");
  await writeFile(path.join(workspace, "lines.txt"), Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n"));
  await writeFile(path.join(workspace, "image.bin"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
  await writeFile(path.join(workspace, "..notes"), "dots are part of the name");
  await symlink(outside, path.join(workspace, "escape"));
  await symlink(path.join(outside, "secret.txt"), path.join(workspace, "secret-link"));
  await symlink(path.join(outside, "nothing.txt"), path.join(workspace, "dangling"));
  await symlink(path.join(workspace, "data"), path.join(workspace, "data-link"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// Test tables are built before beforeAll runs; "<outside>" stands for the folder beside the workspace.
const place = (requested: string) => requested.replace("<outside>", outside);

const escapes = () => [
  ["climbs out with ..", "../outside/secret.txt"],
  ["climbs out from a sub-folder", "data/../../outside/secret.txt"],
  ["is absolute outside", "<outside>/secret.txt"],
  ["is /etc/passwd", "/etc/passwd"],
  ["goes through a symlinked folder", "escape/secret.txt"],
  ["is a symlink to an outside file", "secret-link"],
  ["is a dangling symlink", "dangling"],
];

describe("read_file tool", () => {
  const read = () => createReadFileTool({ workspace });

  it("reads a CSV file whole, as plain text", async () => {
    expect(await read().invoke({ path: "data/sales.csv" })).toBe("region,amount\nnorth,10\nsouth,20\n");
  });

  it("reads JSON as text the caller can parse", async () => {
    expect(JSON.parse(await read().invoke({ path: "data/config.json" }))).toEqual({
      currency: "CNY",
      items: [1, 2, 3],
    });
  });

  it("reads a range of lines and says where to continue", async () => {
    const text = await read().invoke({ path: "lines.txt", offset: 11, limit: 3 });
    expect(text).toBe('line 11\nline 12\nline 13\n[Lines 11-13 of "lines.txt"; more follow: continue with offset 14.]');
  });

  it("says when a range reaches the end of the file", async () => {
    expect(await read().invoke({ path: "lines.txt", offset: 99 })).toBe(
      'line 99\nline 100\n[Lines 99-100 of "lines.txt"; end of file.]',
    );
  });

  it("refuses an offset past the end, naming the line count", async () => {
    const error = await rejection(read().invoke({ path: "lines.txt", offset: 500 }));
    expect(error).toMatchObject({ code: "offset_out_of_range" });
    expect(error.message).toContain("has 100 line(s)");
  });

  it("refuses a file over the size limit and tells how to read it in parts", async () => {
    const error = await rejection(createReadFileTool({ workspace, maxBytes: 100 }).invoke({ path: "lines.txt" }));
    expect(error).toBeInstanceOf(ToolInputError);
    expect(error.code).toBe("file_too_large");
    expect(error.message).toMatch(/over the 100 B read limit.*offset and limit/s);
  });

  it("stops a range at the size limit with a note to continue", async () => {
    const text = await createReadFileTool({ workspace, maxBytes: 30 }).invoke({ path: "lines.txt", offset: 1 });
    expect(text).toBe(
      'line 1\nline 2\nline 3\nline 4\n[Lines 1-4 of "lines.txt" (the 30 B limit); more follow: continue with offset 5.]',
    );
  });

  it.each([
    ["a missing file", "nope.txt", "file_not_found"],
    ["a folder", "data", "not_a_file"],
    ["a binary file", "image.bin", "binary_file"],
    ["a path through a file", "lines.txt/inner", "not_a_folder"],
  ])("refuses %s with a clear code", async (_what, requested, code) => {
    expect(await rejection(read().invoke({ path: requested }))).toMatchObject({ code });
  });

  it.each(escapes())("refuses a path that %s", async (_how, requested) => {
    const error = await rejection(read().invoke({ path: place(requested) }));
    expect(error).toBeInstanceOf(ToolInputError);
    expect(error.code).toBe("path_outside_workspace");
    expect(error.message).toContain("relative to the workspace");
    expect(error.message).not.toContain("TOP-SECRET");
  });

  it("accepts an absolute path inside the workspace", async () => {
    expect(await read().invoke({ path: path.join(workspace, "data", "nested", "deep.txt") })).toBe("deep");
  });

  it("follows a symlink that stays inside the workspace", async () => {
    expect(await read().invoke({ path: "data-link/nested/deep.txt" })).toBe("deep");
  });

  it("does not mistake a name starting with two dots for an escape", async () => {
    expect(await read().invoke({ path: "..notes" })).toBe("dots are part of the name");
  });

  it("reports a missing workspace folder as a configuration error", async () => {
    const error = await rejection(
      createReadFileTool({ workspace: path.join(root, "missing") }).invoke({ path: "a.txt" }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe("workspace_missing");
  });

  it("rejects bad options when the tool is created", () => {
    expect(() => createReadFileTool({ workspace: "" })).toThrow(ConfigError);
    expect(() => createReadFileTool({ workspace, maxBytes: 0 })).toThrow(
      "Expected maxBytes to be a whole number >= 1, got 0.",
    );
  });
});

describe("write_file tool", () => {
  const write = () => createWriteFileTool({ workspace });

  it("writes a file and creates its parent folders", async () => {
    expect(await write().invoke({ path: "out/reports/summary.md", content: "# Total: ¥30\n" })).toBe(
      'Wrote 14 bytes to "out/reports/summary.md".',
    );
    expect(await readFile(path.join(workspace, "out", "reports", "summary.md"), "utf8")).toBe("# Total: ¥30\n");
  });

  it("appends in append mode", async () => {
    await write().invoke({ path: "log.txt", content: "one\n" });
    await write().invoke({ path: "log.txt", content: "two\n", mode: "append" });
    expect(await readFile(path.join(workspace, "log.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("refuses to replace an existing file in create mode", async () => {
    await write().invoke({ path: "once.txt", content: "first", mode: "create" });
    expect(await rejection(write().invoke({ path: "once.txt", content: "second", mode: "create" }))).toMatchObject({
      code: "file_exists",
    });
    expect(await readFile(path.join(workspace, "once.txt"), "utf8")).toBe("first");
  });

  it("refuses content over the write limit", async () => {
    const tool = createWriteFileTool({ workspace, maxBytes: 8 });
    expect(await rejection(tool.invoke({ path: "big.txt", content: "123456789" }))).toMatchObject({
      code: "content_too_large",
    });
  });

  it("refuses to write over a folder", async () => {
    expect(await rejection(write().invoke({ path: "data", content: "x" }))).toMatchObject({ code: "not_a_file" });
  });

  it.each([
    ["climbs out with ..", "../outside/new.txt"],
    ["is absolute outside", "<outside>/new.txt"],
    ["goes through a symlinked folder", "escape/new.txt"],
    ["is a symlink to an outside file", "secret-link"],
    ["is a dangling symlink pointing outside", "dangling"],
  ])("refuses a path that %s and writes nothing outside", async (_how, requested) => {
    const error = await rejection(write().invoke({ path: place(requested), content: "pwned" }));
    expect(error).toMatchObject({ code: "path_outside_workspace" });
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("TOP-SECRET");
  });

  it("creates the workspace folder when it does not exist yet", async () => {
    const fresh = path.join(root, "fresh-ws");
    await createWriteFileTool({ workspace: fresh }).invoke({ path: "a/b.txt", content: "hi" });
    expect(await readFile(path.join(fresh, "a", "b.txt"), "utf8")).toBe("hi");
  });
});

describe("list_files tool", () => {
  const list = (maxEntries?: number) => createListFilesTool({ workspace, maxEntries });

  it("lists one folder, sorted, with file sizes and folders marked", async () => {
    expect(await list().invoke({ path: "data" })).toBe(
      "data/config.json  (34 B)\ndata/nested/\ndata/sales.csv  (32 B)",
    );
  });

  it("lists sub-folders recursively with paths read_file accepts", async () => {
    const text = await list().invoke({ path: "data", recursive: true });
    expect(text.split("\n")).toContain("data/nested/deep.txt  (4 B)");
    expect(await createReadFileTool({ workspace }).invoke({ path: "data/nested/deep.txt" })).toBe("deep");
  });

  it("shows symbolic links without following them", async () => {
    const lines = (await list().invoke({ recursive: true })).split("\n");
    expect(lines).toContain("escape  (symbolic link)");
    expect(lines.some((line) => line.includes("secret.txt"))).toBe(false);
  });

  it("stops at the entry limit with a note", async () => {
    const lines = (await list(2).invoke({})).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("[Listed the first 2 entries only; list a sub-folder to see the rest.]");
  });

  it.each([
    ["climbs out with ..", ".."],
    ["is a symlinked folder outside", "escape"],
    ["is absolute outside", "<outside>"],
  ])("refuses a folder that %s", async (_how, requested) => {
    expect(await rejection(list().invoke({ path: place(requested) }))).toMatchObject({
      code: "path_outside_workspace",
    });
  });

  it("refuses a file, pointing to read_file", async () => {
    const error = await rejection(list().invoke({ path: "lines.txt" }));
    expect(error).toMatchObject({ code: "not_a_folder" });
    expect(error.message).toContain("read_file");
  });
});

describe("workspace confinement", () => {
  it("resolves any path inside the workspace or refuses it", async () => {
    const realRoot = await realpath(workspace);
    const segment = fc.constantFrom(
      "..",
      ".",
      "data",
      "nested",
      "escape",
      "secret-link",
      "data-link",
      "new",
      "",
      "x..y",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), async (segments, absolute) => {
        const requested = absolute ? path.join(workspace, ...segments) : segments.join("/");
        try {
          const resolved = await resolveWorkspacePath(workspace, requested);
          const relative = path.relative(realRoot, resolved.absolute);
          expect(relative.split(path.sep)[0]).not.toBe("..");
          expect(path.isAbsolute(relative)).toBe(false);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolInputError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
