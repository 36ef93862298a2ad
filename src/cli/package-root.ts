import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: { root: string; version: string } | null | undefined;

/** svc-flow's own folder and version, found upward from this file (src/cli, or dist/src/cli once built);
 * undefined when no svc-flow package.json is above it. */
export function packageRoot(): { readonly root: string; readonly version: string } | undefined {
  if (cached !== undefined) return cached ?? undefined;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "svc-flow" && typeof manifest.version === "string")
        return (cached = { root: dir, version: manifest.version });
    } catch {
      // No package.json here (or not ours): look one folder up.
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      cached = null;
      return undefined;
    }
    dir = parent;
  }
}
