import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/** The version in svc-flow's package.json (found upward from this file: src/cli or dist/src/cli). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "svc-flow" && typeof manifest.version === "string") return (cached = manifest.version);
    } catch {
      // No package.json here (or not ours): look one folder up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cached = "unknown");
    dir = parent;
  }
}
