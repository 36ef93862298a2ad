// One case of batch.bench.ts in a fresh process: writes an N-row JSONL file, runs a one-step
// workflow over it as a batch against the gateway at argv[2], and reports wall time, peak RSS and
// the heap still held after the run (after a full GC).
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseWorkflow, runWorkflow } from "svc-flow/workflow";

const [baseURL, rowsText, concurrencyText] = process.argv.slice(2);
const rows = Number(rowsText);
const concurrency = Number(concurrencyText);
const dir = await mkdtemp(join(tmpdir(), "svc-flow-batch-bench-"));
const itemsFile = join(dir, "products.jsonl");
// Written in chunks, so the rows' text is not held while the batch runs.
const handle = await open(itemsFile, "w");
for (let start = 0; start < rows; start += 10_000) {
  const chunk = Array.from({ length: Math.min(10_000, rows - start) }, (_, offset) =>
    JSON.stringify({ sku: `P-${start + offset}`, title: `solar lantern model ${start + offset}` }),
  );
  await handle.write(`${chunk.join("\n")}\n`);
}
await handle.close();
const workflow = parseWorkflow(
  [
    "version: 1",
    "name: blurbs",
    `concurrency: ${concurrency}`,
    "inputs:",
    "  product: { type: items }",
    "steps:",
    "  - id: blurb",
    "    uses: chat",
    '    with: { model: beta-4o-mini, prompt: "One line for ${{ inputs.product.title }}", maxTokens: 24 }',
    "outputs:",
    "  sku: ${{ inputs.product.sku }}",
    "  text: ${{ steps.blurb.output.text }}",
  ].join("\n") + "\n",
  { fileName: join(dir, "blurbs.yaml"), baseDir: dir },
);

global.gc?.();
const baseHeap = process.memoryUsage().heapUsed;
const baseRss = process.memoryUsage().rss;
const started = performance.now();
const result = await runWorkflow(workflow, {
  inputs: { product: itemsFile },
  outDir: join(dir, "run"),
  gateway: { baseURL: baseURL!, apiKey: "sk-local-demo" },
  notice: () => undefined,
});
const wallMs = performance.now() - started;
// The kernel's high-water mark: no sampling timer adds to the CPU measured, and no peak falls between samples.
const peakRss = process.resourceUsage().maxRSS * 1024;
// What the run still holds once it is over, garbage aside: RSS also counts heap V8 has grown and not given back.
global.gc?.();
const endHeap = process.memoryUsage().heapUsed;
await rm(dir, { recursive: true, force: true });
process.send?.({ wallMs, baseRss, peakRss, baseHeap, endHeap, status: result.status, outputs: result.outputs });
