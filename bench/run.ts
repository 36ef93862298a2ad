// `npm run bench [-- --quick] [-- name...]`: runs the benchmarks, prints a table, writes JSON.
// The workers measure the built package (dist/, through its `svc-flow` exports), as users run it;
// dist/ is rebuilt first when a source is newer.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setup as buildDist } from "../test/build-dist.js";
import { formatTable, type Bench, type BenchRow } from "./harness.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args.filter((arg) => !arg.startsWith("--"));

buildDist();
const files = (await readdir(here)).filter((file) => file.endsWith(".bench.ts")).sort();
const rows: BenchRow[] = [];
for (const file of files) {
  const bench = ((await import(join(here, file))) as { default: Bench }).default;
  if (only.length > 0 && !only.includes(bench.name)) continue;
  process.stderr.write(`bench ${bench.name}...\n`);
  rows.push(...(await bench.run({ quick })));
}

process.stdout.write(`${formatTable(rows)}\n`);
const outDir = join(here, "results");
await mkdir(outDir, { recursive: true });
const file = join(outDir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
const machine = { node: process.version, platform: process.platform, arch: process.arch };
await writeFile(file, `${JSON.stringify({ machine, quick, rows }, null, 2)}\n`);
await writeFile(join(outDir, "latest.json"), `${JSON.stringify({ machine, quick, rows }, null, 2)}\n`);
process.stderr.write(`wrote ${file}\n`);
