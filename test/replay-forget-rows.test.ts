import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { CostEntry } from "../src/cost/cost-entry.js";
import { finishedRowSteps } from "../src/workflow/batch/batch-run-body.js";
import type { ItemResult } from "../src/workflow/batch/item-results.js";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { Replay } from "../src/workflow/run/replay.js";
import { runWorkflow } from "../src/workflow/run/run-workflow.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";

let dir: string;
let gateway: LocalGateway;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-forget-rows-"));
  gateway = await startLocalGateway({ port: 0 });
});
afterEach(async () => {
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

const rowOf = (key: string | undefined) => Number(/^items\[(\d+)\]/.exec(key ?? "")?.[1]);

// A two-step batch of 12 rows stopped once 5 are done; the rows done, and the run directory.
async function stoppedBatch(): Promise<{ runDir: string; done: Set<number> }> {
  await writeFile(join(dir, "rows.jsonl"), Array.from({ length: 12 }, (_, n) => JSON.stringify({ n })).join("\n"));
  const workflow = parseWorkflow(
    `version: 1
name: rows
concurrency: 2
inputs:
  row: { type: items, default: rows.jsonl }
steps:
  - id: first
    uses: chat
    with: { model: beta-4o-mini, prompt: "Row \${{ inputs.row.n }}", maxTokens: 8 }
  - id: second
    uses: chat
    with: { model: beta-4o-mini, prompt: "Again \${{ steps.first.output.text }}", maxTokens: 8 }
`,
    { fileName: join(dir, "rows.yaml"), baseDir: dir },
  );
  const controller = new AbortController();
  const runDir = join(dir, "run");
  const stopped = await runWorkflow(workflow, {
    outDir: runDir,
    signal: controller.signal,
    gateway: { baseURL: gateway.baseURL, apiKey: "sk-local-demo" },
    notice: () => undefined,
    onEvent: (event) => {
      if (event.type === "map-progress" && event.done >= 5) controller.abort();
    },
  });
  expect(stopped.status).toBe("stopped");
  const lines = (await readFile(join(runDir, "outputs.jsonl"), "utf8")).trim().split("\n");
  const results = lines.map((line) => JSON.parse(line) as ItemResult);
  return { runDir, done: new Set(results.filter((result) => result.state === "done").map((result) => result.index)) };
}

it("names the step instances of a batch's finished rows, and none of a run that is not a batch", async () => {
  const { runDir, done } = await stoppedBatch();
  const finished = await finishedRowSteps(runDir);
  const rows = Array.from({ length: 12 }, (_, row) => row);
  expect(rows.filter((row) => finished?.(`items[${row}].second`))).toEqual(rows.filter((row) => done.has(row)));
  expect(finished?.("items")).toBe(false);
  expect(await finishedRowSteps(dir)).toBeUndefined();
});

it("keeps none of the records of forgotten step instances, bills included, and all of the others", async () => {
  const { runDir, done } = await stoppedBatch();
  const journal = join(runDir, "journal.jsonl");
  const whole = await Replay.read(journal);
  // The even finished rows are forgotten; the odd ones stand for rows that run again.
  const forgotten = (key: string) => done.has(rowOf(key)) && rowOf(key) % 2 === 0;
  const read: CostEntry[] = [];
  const replay = await Replay.read(journal, {
    forget: forgotten,
    each: (record) => {
      if (record.type === "cost") read.push(record.entry);
    },
  });

  const keptSteps = [...whole.steps.keys()].filter((key) => !forgotten(key));
  expect(keptSteps.length).toBeGreaterThanOrEqual(4);
  expect([...replay.steps.keys()]).toEqual(keptSteps);
  expect(keptSteps.map((key) => replay.costsOf(key))).toEqual(keptSteps.map((key) => whole.costsOf(key)));
  expect(replay.costs).toEqual(whole.costs.filter((entry) => !forgotten(entry.tags.step!)));
  // Every bill passes by for the ledger, and every forgotten step that billed is named as finished.
  expect(read).toEqual(whole.costs);
  const billedForgotten = [...new Set(whole.costs.map((entry) => entry.tags.step!).filter(forgotten))];
  expect(billedForgotten.length).toBeGreaterThanOrEqual(4);
  expect(billedForgotten.flatMap((key) => replay.costsOf(key))).toEqual([]);
  expect([...replay.finishedSteps()]).toEqual([...keptSteps, ...billedForgotten]);
});
