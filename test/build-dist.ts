import { execFileSync } from "node:child_process";
import { readdirSync, statSync, utimesSync } from "node:fs";
import path from "node:path";

// Tests that spawn bin/svc-flow.js run dist/, so dist must be as new as the sources. `npm test` builds
// first (pretest); this covers `npx vitest run FILE` too, building only when a source is newer.
const ROOT = path.resolve(import.meta.dirname, "..");
const BUILD_INFO = path.join(ROOT, "dist", ".tsbuildinfo");
const SOURCES = ["src", "agents", "tools", "tsconfig.json", "tsconfig.build.json"];

function newestChange(entry: string): number {
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestChange(path.join(entry, name)));
  return newest;
}

function builtAt(): number {
  try {
    return statSync(BUILD_INFO).mtimeMs;
  } catch {
    return 0;
  }
}

/** Builds dist/ before the tests when any shipped source changed since the last build. */
export function setup(): void {
  const newest = Math.max(...SOURCES.map((entry) => newestChange(path.join(ROOT, entry))));
  if (newest <= builtAt()) return;
  try {
    execFileSync(
      process.execPath,
      [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: ROOT,
        stdio: "pipe",
      },
    );
  } catch (error) {
    // tsc still writes dist/ when it finds type errors; say so, and let the tests run on what it wrote.
    const output = (error as { stdout?: Buffer }).stdout?.toString() ?? String(error);
    process.stderr.write(`npm run build reported errors (dist/ was still written):\n${output}\n`);
  }
  // tsc leaves its build info alone when no file's content changed; mark the sources as built.
  const now = new Date();
  utimesSync(BUILD_INFO, now, now);
}
