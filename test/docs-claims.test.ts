// Facts the user docs state that come from the package manifest, checked against it.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

const read = (file: string) => readFile(new URL(`../${file}`, import.meta.url), "utf8");

describe("what the docs say about the package", () => {
  it.each(["README.md", "docs/install.md"])(
    "%s names the Node version package.json's engines require",
    async (file) => {
      const manifest = JSON.parse(await read("package.json")) as { engines: { node: string } };
      const least = /^>=(\d+\.\d+\.\d+)$/.exec(manifest.engines.node)?.[1];
      expect(least).toBeDefined();
      const named = [...(await read(file)).matchAll(/Node (\d+\.\d+(?:\.\d+)?) or newer/g)].map((match) => match[1]);
      expect(named.length).toBeGreaterThan(0);
      for (const version of named) expect(version).toBe(least);
    },
  );
});
