// One case of workflow-map.bench.ts in a fresh process: runs an N-item map workflow against the
// gateway at argv[2] (after a smaller warm-up run), then resumes the finished run, and reports the
// run's wall time and CPU time (end-of-run files and report included), resume's wall time and peak RSS.
// argv is BASE_URL ITEMS CONCURRENCY WARMUP.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseWorkflow, resumeWorkflow, runWorkflow } from "svc-flow/workflow";

const [baseURL, itemsText, concurrencyText, warmupText] = process.argv.slice(2);
const items = Number(itemsText);
const concurrency = Number(concurrencyText);
const dir = await mkdtemp(join(tmpdir(), "svc-flow-map-bench-"));
const gateway = { baseURL: baseURL!, apiKey: "sk-local-demo" };

function mapWorkflow(count: number, label: string) {
  return parseWorkflow(
    [
      "version: 1",
      "name: map-bench",
      `concurrency: ${concurrency}`,
      "steps:",
      "  - id: lines",
      `    map: [${Array.from({ length: count }, (_, index) => index).join(", ")}]`,
      "    as: n",
      `    concurrency: ${concurrency}`,
      "    steps:",
      "      - id: line",
      "        uses: chat",
      `        with: { model: beta-4o-mini, prompt: "One line about lantern ${label} \${{ n }}", maxTokens: 24 }`,
    ].join("\n") + "\n",
    { fileName: join(dir, "map-bench.yaml"), baseDir: dir },
  );
}

// The warm-up run compiles the engine's code paths, as the bare loop's warm-up does its own.
const warmup = Number(warmupText);
if (warmup > 0) {
  await runWorkflow(mapWorkflow(warmup, "warm-up"), { outDir: join(dir, "warm-up"), gateway, notice: () => undefined });
}
const workflow = mapWorkflow(items, "map");
// No forced GC before the measured run (the bare loop forces none either): with one, V8 compiled again in
// every run what the runs before it had compiled (--trace-opt, 2,000-item runs in one process: 205 to 248
// functions in each of four runs, against 219, 87, 53 and 18 without), so the warm-up was undone.
const baseRss = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await runWorkflow(workflow, { outDir: join(dir, "run"), gateway, notice: () => undefined });
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
// The kernel's high-water mark: no sampling timer adds to the CPU measured, and no peak falls between samples.
const peakRss = process.resourceUsage().maxRSS * 1024;

const resumeStarted = performance.now();
const resumed = await resumeWorkflow(join(dir, "run"), { gateway, notice: () => undefined });
const resumeMs = performance.now() - resumeStarted;
const done = Array.isArray(result.outputs?.lines) ? result.outputs.lines.length : 0;
await rm(dir, { recursive: true, force: true });
process.send?.({
  wallMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  resumeMs,
  baseRss,
  peakRss,
  status: result.status,
  resumedStatus: resumed.status,
  done,
});
