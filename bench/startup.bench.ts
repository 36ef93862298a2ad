// What a user waits for before any call: `import("svc-flow")` against `import("@langchain/openai")`
// (time to import, and RSS once imported, in a fresh node each time), and the CLI's start-up
// (`svc-flow --version`, `svc-flow validate FILE`, whole processes on the built bin) against
// `node -e 0`. Each pair runs in turn (A B A B ...), so drift on a shared machine hits both.
// Targets: import at most 1.5x @langchain/openai in time and memory; --version at most 2x and
// validate at most 5x `node -e 0`.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median, type Bench, type BenchRow } from "./harness.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
const TSC = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
const WORKFLOW = "workflows/launch-kit.yaml";
const MIB = 1024 * 1024;

// Run with the project as working folder, so "svc-flow" resolves to the package itself (its exports).
const IMPORT_PROBE = `const started = performance.now();
await import(process.argv[1]);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss }));`;

async function importOnce(specifier: string): Promise<{ ms: number; rss: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--input-type=module", "-e", IMPORT_PROBE, specifier],
    { cwd: ROOT },
  );
  return JSON.parse(stdout) as { ms: number; rss: number };
}

/** Wall time of a whole process, from spawn to exit, in milliseconds; it must exit 0. */
async function processMs(args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: "ignore" });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with ${String(code)}.`);
  return performance.now() - started;
}

/** Runs `a` and `b` in turn `repeats` times after one warm-up each; medians of both and of the pairwise ratios. */
async function pairs<T>(repeats: number, a: () => Promise<T>, b: () => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  await a();
  await b();
  const results = { a: [] as T[], b: [] as T[] };
  for (let index = 0; index < repeats; index++) {
    results.a.push(await a());
    results.b.push(await b());
  }
  return results;
}

function ratioRow(name: string, metric: string, unit: string, a: number[], b: number[], target: string): BenchRow {
  const ratio = median(a.map((value, index) => value / b[index]!));
  return {
    bench: "startup",
    case: name,
    metric,
    value: median(a),
    unit,
    baseline: median(b),
    ratio,
    note: `median of pairwise ratios; ${target}`,
  };
}

const startup: Bench = {
  name: "startup",
  async run({ quick }) {
    // The bin and the package root run dist/: build it if a source changed (incremental, quick when fresh).
    await promisify(execFile)(process.execPath, [TSC, "-p", "tsconfig.build.json"], { cwd: ROOT });
    const repeats = quick ? 5 : 15;
    const imports = await pairs(
      repeats,
      () => importOnce("svc-flow"),
      () => importOnce("@langchain/openai"),
    );
    const version = await pairs(
      repeats,
      () => processMs([BIN, "--version"]),
      () => processMs(["-e", "0"]),
    );
    const validate = await pairs(
      repeats,
      () => processMs([BIN, "validate", WORKFLOW]),
      () => processMs(["-e", "0"]),
    );
    const mib = (values: { rss: number }[]) => values.map((value) => value.rss / MIB);
    const ms = (values: { ms: number }[]) => values.map((value) => value.ms);
    return [
      ratioRow(
        'import("svc-flow") vs @langchain/openai',
        "import time",
        "ms",
        ms(imports.a),
        ms(imports.b),
        "target <= 1.5x",
      ),
      ratioRow(
        'import("svc-flow") vs @langchain/openai',
        "RSS after import",
        "MiB",
        mib(imports.a),
        mib(imports.b),
        "target <= 1.5x",
      ),
      ratioRow("svc-flow --version vs node -e 0", "process wall", "ms", version.a, version.b, "target <= 2x"),
      ratioRow(
        `svc-flow validate ${WORKFLOW} vs node -e 0`,
        "process wall",
        "ms",
        validate.a,
        validate.b,
        "target <= 5x",
      ),
    ];
  },
};

export default startup;
