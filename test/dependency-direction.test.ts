// Dependencies point one way: the workflow engine never reaches into the local gateway; only the
// composition root in src/cli both starts a local gateway and runs a workflow.
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

describe("dependency direction", () => {
  it("no module under src/workflow imports src/server", async () => {
    const offenders: string[] = [];
    for (const file of await sources(path.join(SRC, "workflow"))) {
      const text = await readFile(file, "utf8");
      for (const match of text.matchAll(/(?:from|import\()\s*["']([^"']+)["']/g)) {
        const target = path.resolve(path.dirname(file), match[1]!);
        if (target.startsWith(path.join(SRC, "server") + path.sep))
          offenders.push(`${path.relative(SRC, file)} -> ${match[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
