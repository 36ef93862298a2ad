// Dependencies point one way: LangChain stays at the edge (src/langchain); the workflow engine never reaches into
// the local gateway; only the composition root in src/cli both starts a local gateway and runs a workflow.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.join(import.meta.dirname, "..", "src");

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Imports from the modules under src/`from` that land in one of the src folders `into`. */
async function importsInto(from: string, into: readonly string[]): Promise<string[]> {
  const offenders: string[] = [];
  for (const file of await sources(path.join(SRC, from))) {
    const text = await readFile(file, "utf8");
    for (const match of text.matchAll(/(?:from|import\()\s*["']([^"']+)["']/g)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      if (into.some((folder) => target.startsWith(path.join(SRC, folder) + path.sep)))
        offenders.push(`${path.relative(SRC, file)} -> ${match[1]}`);
    }
  }
  return offenders;
}

describe("dependency direction", () => {
  it("no module under src/workflow imports src/server", async () => {
    expect(await importsInto("workflow", ["server"])).toEqual([]);
  });

  it("the catalogue (models, rules, prices, token counts) imports no other part of src but media probing", async () => {
    const parts = ["gateway", "chat", "scheduling", "langchain", "cost", "workflow", "server", "cli", "net"];
    expect(await importsInto("catalog", parts)).toEqual([]);
  });

  it("no module under src outside src/langchain imports LangChain", async () => {
    const offenders: string[] = [];
    for (const file of await sources(SRC)) {
      if (file.startsWith(path.join(SRC, "langchain") + path.sep)) continue;
      const text = await readFile(file, "utf8");
      for (const match of text.matchAll(/(?:from|import\()\s*["']((?:@langchain\/|langchain)[^"']*)["']/g))
        offenders.push(`${path.relative(SRC, file)} -> ${match[1]}`);
    }
    expect(offenders).toEqual([]);
  });
});
