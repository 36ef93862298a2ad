// One case of workflow-map.bench.ts in a fresh process: runs an N-item map workflow against the
// gateway at argv[2], then resumes the finished run, and reports both wall times and peak RSS.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { resumeWorkflow } from "../src/workflow/run/resume-workflow.js";
import { runWorkflow } from "../src/workflow/run/run-workflow.js";

const [baseURL, itemsText, concurrencyText] = process.argv.slice(2);
const items = Number(itemsText);
const concurrency = Number(concurrencyText);
const dir = await mkdtemp(join(tmpdir(), "svc-flow-map-bench-"));
const workflow = parseWorkflow(
  [
    "version: 1",
    "name: map-bench",
    `concurrency: ${concurrency}`,
    "steps:",
    "  - id: lines",
    `    map: [${Array.from({ length: items }, (_, index) => index).join(", ")}]`,
    "    as: n",
    `    concurrency: ${concurrency}`,
    "    steps:",
    "      - id: line",
    "        uses: chat",
    '        with: { model: beta-4o-mini, prompt: "One line about lantern ${{ n }}", maxTokens: 24 }',
  ].join("\n") + "\n",
  { fileName: join(dir, "map-bench.yaml"), baseDir: dir },
);
const gateway = { baseURL: baseURL!, apiKey: "sk-local-demo" };

global.gc?.();
const baseRss = process.memoryUsage().rss;
let peakRss = baseRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 20);
const started = performance.now();
const result = await runWorkflow(workflow, { outDir: join(dir, "run"), gateway, notice: () => undefined });
const wallMs = performance.now() - started;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

const resumeStarted = performance.now();
const resumed = await resumeWorkflow(join(dir, "run"), { gateway, notice: () => undefined });
const resumeMs = performance.now() - resumeStarted;
const done = Array.isArray(result.outputs?.lines) ? result.outputs.lines.length : 0;
await rm(dir, { recursive: true, force: true });
process.send?.({ wallMs, resumeMs, baseRss, peakRss, status: result.status, resumedStatus: resumed.status, done });
