import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CostEntry } from "../src/cost/cost-entry.js";
import { summarizeEntries, type CostSummary } from "../src/cost/summarize-entries.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import type { ItemResult } from "../src/workflow/batch/item-results.js";
import { ItemsError } from "../src/workflow/batch/items-error.js";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { resumeWorkflow } from "../src/workflow/run/resume-workflow.js";
import { runWorkflow } from "../src/workflow/run/run-workflow.js";
import { listRuns } from "../src/workflow/schedule/list-runs.js";

let dir: string;
let gateway: LocalGateway;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-batch-workflow-"));
});
afterEach(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

function load(text: string) {
  return parseWorkflow(text, { fileName: join(dir, "batch.yaml"), baseDir: dir });
}

async function results(runDir: string): Promise<ItemResult[]> {
  const text = await readFile(join(runDir, "outputs.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as ItemResult);
}

async function costFile(runDir: string): Promise<CostSummary & { calls: CostEntry[] }> {
  return JSON.parse(await readFile(join(runDir, "cost.json"), "utf8")) as CostSummary & { calls: CostEntry[] };
}

// A one-step batch over `rows` rows of rows.jsonl, one priced call a row.
async function rowsWorkflow(rows: number, settings = "") {
  await writeFile(
    join(dir, "rows.jsonl"),
    Array.from({ length: rows }, (_, index) => JSON.stringify({ title: `lamp ${index}` })).join("\n"),
  );
  return load(`version: 1
name: blurbs
${settings}inputs:
  product: { type: items, default: rows.jsonl }
steps:
  - id: blurb
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line for \${{ inputs.product.title }}", maxTokens: 8 }
`);
}

// Runs a batch and interrupts it once `done` rows are done.
function runStoppedAfter(workflow: ReturnType<typeof load>, runDir: string, done: number) {
  const controller = new AbortController();
  return runWorkflow(workflow, {
    outDir: runDir,
    signal: controller.signal,
    onEvent: (event) => {
      if (event.type === "map-progress" && event.done >= done) controller.abort();
    },
    ...connection(),
  });
}

const connection = () => ({ gateway: { baseURL: gateway.baseURL, apiKey: "sk-local-demo" }, notice: () => undefined });

describe("batch runs through the workflow engine", () => {
  it("maps the steps over a CSV items input, each row the input's value, outputs streamed to outputs.jsonl", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "products.csv"), 'sku,title\nA-1,"Lamp, solar"\nB-2,"Kettle ""Pro"""\nC-3,Fan\n');
    const workflow = load(`version: 1
name: blurbs
inputs:
  product: { type: items, default: products.csv }
steps:
  - id: blurb
    uses: chat
    with: { model: beta-4o-mini, prompt: "One line for \${{ inputs.product.title }}", maxTokens: 16 }
outputs:
  sku: \${{ inputs.product.sku }}
  text: \${{ steps.blurb.output.text }}
`);
    const result = await runWorkflow(workflow, { outDir: join(dir, "run"), ...connection() });
    expect(result.status).toBe("done");
    expect(result.outputs).toEqual({ items: { file: "outputs.jsonl", total: 3, done: 3, failed: 0 } });
    const lines = (await results(join(dir, "run"))).sort((a, b) => a.index - b.index);
    expect(lines.map((line) => [line.index, line.line, (line.output as { sku: string }).sku])).toEqual([
      [0, 2, "A-1"],
      [1, 3, "B-2"],
      [2, 4, "C-3"],
    ]);
    expect(lines.every((line) => typeof (line.output as { text: unknown }).text === "string")).toBe(true);
    const journal = await readFile(join(dir, "run", "journal.jsonl"), "utf8");
    expect(journal).toContain('"key":"items[1].blurb"');
  });

  it("lists every row's call and step totals in cost.json while the report and the result hold the first page's", async () => {
    gateway = await startLocalGateway({ port: 0 });
    const rows = 130;
    const workflow = await rowsWorkflow(rows);
    let reportEntries = -1;
    let lastRowYuan: number | undefined;
    const runDir = join(dir, "run");
    const result = await runWorkflow(workflow, {
      outDir: runDir,
      ...connection(),
      report: async (summary) => {
        reportEntries = summary.entries.length;
        lastRowYuan = summary.rowYuan?.(rows - 1);
      },
    });
    expect(result.status).toBe("done");
    const cost = await costFile(runDir);
    expect(cost.entries).toBe(rows);
    expect(new Set(cost.calls.map((call) => call.tags.step)).size).toBe(rows);
    expect(Object.keys(cost.byTag.step!)).toHaveLength(rows);
    expect(cost.byTag.step).toEqual(summarizeEntries(cost.calls).byTag.step);
    expect(reportEntries).toBe(100);
    expect(Object.keys(result.cost.byTag.step!)).toHaveLength(100);
    expect(result.cost.totalYuan).toBe(cost.totalYuan);
    expect(lastRowYuan).toBe(cost.byTag.step![`items[${rows - 1}].blurb`]!.yuan);
    const left = await readdir(runDir);
    expect(left).not.toContain(".cost-calls.jsonl");
    expect(left).not.toContain(".cost-steps.jsonl");
  });

  it("a resumed batch of more than a page still writes each row's step totals to cost.json once", async () => {
    gateway = await startLocalGateway({ port: 0 });
    const rows = 130;
    const workflow = await rowsWorkflow(rows, "concurrency: 4\n");
    const runDir = join(dir, "run");
    const first = await runStoppedAfter(workflow, runDir, 115);
    expect(first.status).toBe("stopped");
    const second = await resumeWorkflow(runDir, connection());
    expect(second.status).toBe("done");
    const cost = await costFile(runDir);
    expect(cost.byTag.step).toEqual(summarizeEntries(cost.calls).byTag.step);
    // Parsing keeps one of two equal keys: the text shows each row's once.
    const text = await readFile(join(runDir, "cost.json"), "utf8");
    expect(text.match(/^ {6}"items\[\d+\]\.blurb": \{/gm)).toHaveLength(rows);
  });

  it("with `items` and no items input, each row gives input values, converted to their declared types", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "rows.csv"), "topic,words\nkites,3\nboats,5\n");
    const workflow = load(`version: 1
inputs:
  topic: { type: string }
  words: { type: integer }
  tone: { type: string, default: warm }
steps:
  - id: line
    uses: chat
    with: { model: beta-4o-mini, prompt: "\${{ inputs.words }} \${{ inputs.tone }} words on \${{ inputs.topic }}", maxTokens: 8 }
outputs:
  topic: \${{ inputs.topic }}
  double: \${{ inputs.words * 2 }}
  tone: \${{ inputs.tone }}
`);
    const result = await runWorkflow(workflow, {
      items: join(dir, "rows.csv"),
      inputs: { tone: "dry" },
      outDir: join(dir, "run"),
      ...connection(),
    });
    expect(result.status).toBe("done");
    const outputs = (await results(join(dir, "run"))).sort((a, b) => a.index - b.index).map((line) => line.output);
    expect(outputs).toEqual([
      { topic: "kites", double: 6, tone: "dry" },
      { topic: "boats", double: 10, tone: "dry" },
    ]);
  });

  it("leaves out the columns that name no input, saying so once for each, and runs every row", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "rows.csv"), "sku,topic,notes,words\nA-1,kites,fragile,3\nB-2,boats,,5\nC-3,bells,x,2\n");
    const workflow = load(`version: 1
inputs:
  topic: { type: string }
  word: { type: integer, default: 1 }
steps:
  - id: line
    uses: chat
    with: { model: beta-4o-mini, prompt: "\${{ inputs.word }} words on \${{ inputs.topic }}", maxTokens: 8 }
outputs:
  topic: \${{ inputs.topic }}
`);
    const warnings: string[] = [];
    const result = await runWorkflow(workflow, {
      items: join(dir, "rows.csv"),
      outDir: join(dir, "run"),
      onEvent: (event) => {
        if (event.type === "warning") warnings.push(event.message);
      },
      ...connection(),
    });
    expect(result.status).toBe("done");
    expect(result.items).toEqual([{ key: "items", succeeded: 3, failed: 0, total: 3 }]);
    expect(warnings.sort()).toEqual([
      `Column "notes" of ${join(dir, "rows.csv")} names no input of the workflow, so it is left out.`,
      `Column "sku" of ${join(dir, "rows.csv")} names no input of the workflow, so it is left out.`,
      `Column "words" of ${join(dir, "rows.csv")} names no input of the workflow, so it is left out. Did you mean "word"?`,
    ]);
  });

  it("refuses rows that give no column for a required input before making the run directory or paying", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "rows.csv"), "sku,titel\nA-1,Lamp\nB-2,Fan\n");
    const workflow = load(`version: 1
inputs:
  title: { type: string }
  tone: { type: string }
steps:
  - id: line
    uses: chat
    with: { model: beta-4o-mini, prompt: "\${{ inputs.tone }} \${{ inputs.title }}", maxTokens: 8 }
`);
    const error = await runWorkflow(workflow, {
      items: join(dir, "rows.csv"),
      inputs: { tone: "dry" },
      outDir: join(dir, "run"),
      ...connection(),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ItemsError);
    expect((error as ItemsError).message).toBe(
      `${join(dir, "rows.csv")}:1: No column of the header gives the required input "title". Did you mean "titel"? Name a column after it, or pass --input title=VALUE.`,
    );
    await expect(readFile(join(dir, "run", "journal.jsonl"))).rejects.toThrow(/ENOENT/);
    expect(gateway.stats().keys.flatMap((key) => key.billed)).toEqual([]);
  });

  it("refuses a missing items file before making the run directory", async () => {
    gateway = await startLocalGateway({ port: 0 });
    const workflow = load(`version: 1
inputs:
  topic: { type: string }
steps:
  - id: line
    uses: chat
    with: { model: beta-4o-mini, prompt: "\${{ inputs.topic }}", maxTokens: 8 }
`);
    const error = await runWorkflow(workflow, {
      items: join(dir, "nope.csv"),
      outDir: join(dir, "run"),
      ...connection(),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ItemsError);
    expect((error as ItemsError).message).toMatch(/nope\.csv: No such file/);
    await expect(readFile(join(dir, "run", "journal.jsonl"))).rejects.toThrow(/ENOENT/);
  });

  it("an interrupted batch resumes without running or paying for finished items again", async () => {
    gateway = await startLocalGateway({ port: 0, config: { faults: { seed: 1, latencyMs: 100 } } });
    await writeFile(
      join(dir, "items.jsonl"),
      Array.from({ length: 40 }, (_, index) => JSON.stringify({ n: index })).join("\n") + "\n",
    );
    const workflow = load(`version: 1
concurrency: 4
inputs:
  row: { type: items, default: items.jsonl }
steps:
  - id: say
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Number \${{ inputs.row.n }}", maxTokens: 8 }
outputs:
  n: \${{ inputs.row.n }}
`);
    const runDir = join(dir, "run");
    const first = await runStoppedAfter(workflow, runDir, 10);
    expect(first).toMatchObject({ status: "stopped", reason: "interrupted" });
    const [stopped] = await listRuns(dir);
    expect(stopped).toMatchObject({ state: "stopped" });
    expect(stopped!.items!.done).toBeGreaterThanOrEqual(10);
    expect(stopped!.items!.done).toBeLessThan(40);

    // Calls cut off by the stop may still be billed by the gateway a moment later.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const doneFirst = (await results(runDir)).filter((line) => line.state === "done").length;
    const billedFirst = gateway.stats().keys[0]!.billed.length;
    expect(billedFirst - doneFirst).toBeLessThanOrEqual(4);

    const second = await resumeWorkflow(runDir, connection());
    expect(second.status).toBe("done");
    expect(second.outputs).toEqual({ items: { file: "outputs.jsonl", total: 40, done: 40, failed: 0 } });
    const done = (await results(runDir)).filter((line) => line.state === "done").map((line) => line.index);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => index));
    // Across both runs every row was billed exactly once. A call the stop cut off may still have been
    // billed; resume then sends it again under the same Idempotency-Key and gets it replayed, free.
    const stats = gateway.stats().keys[0]!;
    const billedChat = stats.billed.filter((entry) => entry.kind === "chat");
    expect(billedChat).toHaveLength(40);
    const { calls } = JSON.parse(await readFile(join(runDir, "cost.json"), "utf8")) as {
      calls: Array<{ requestId?: string; replayed?: boolean; tags: Record<string, string> }>;
    };
    const rowOf = new Map(calls.map((call) => [call.requestId, call.tags.step]));
    const billedRows = billedChat.map((entry) => rowOf.get(entry.requestId));
    expect(billedRows.sort()).toEqual(Array.from({ length: 40 }, (_, index) => `items[${index}].say`).sort());
    expect(stats.requests.replayed).toBe(calls.filter((call) => call.replayed === true).length);
    const [finished] = await listRuns(dir);
    expect(finished).toMatchObject({ state: "done", items: { done: 40, failed: 0, total: 40 } });
    const cost = JSON.parse(await readFile(join(runDir, "cost.json"), "utf8")) as { totalYuan: number };
    expect(finished!.costYuan).toBe(cost.totalYuan);
    expect(finished!.costYuan).toBeGreaterThan(0);
  });

  it("a budget stop halts the batch without marking the remaining items failed", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(
      join(dir, "items.jsonl"),
      Array.from({ length: 30 }, (_, index) => JSON.stringify({ n: index })).join("\n") + "\n",
    );
    const workflow = load(`version: 1
concurrency: 2
inputs:
  row: { type: items, default: items.jsonl }
steps:
  - id: say
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Number \${{ inputs.row.n }}", maxTokens: 50 }
`);
    const runDir = join(dir, "run");
    const first = await runWorkflow(workflow, { outDir: runDir, budgetYuan: 0.05, ...connection() });
    expect(first).toMatchObject({ status: "stopped", reason: "budget" });
    const lines = await results(runDir);
    expect(lines.filter((line) => line.state === "failed")).toEqual([]);
    expect(lines.length).toBeLessThan(30);
    const second = await resumeWorkflow(runDir, { budgetYuan: 10, ...connection() });
    expect(second.outputs).toMatchObject({ items: { total: 30, done: 30, failed: 0 } });
  });

  it("a resumed batch counts its finished rows' bills against the cap and in cost.json, to the fen", async () => {
    gateway = await startLocalGateway({ port: 0 });
    const workflow = await rowsWorkflow(40, "concurrency: 2\n");
    const runDir = join(dir, "run");
    const first = await runWorkflow(workflow, { outDir: runDir, budgetYuan: 0.02, ...connection() });
    expect(first).toMatchObject({ status: "stopped", reason: "budget" });
    const before = await costFile(runDir);
    expect((await results(runDir)).filter((line) => line.state === "done").length).toBeGreaterThan(0);

    // Raised by less than the first attempt spent: only a cap that counts the finished rows stops again.
    const second = await resumeWorkflow(runDir, { budgetYuan: 0.03, ...connection() });
    expect(second).toMatchObject({ status: "stopped", reason: "budget" });
    const after = await costFile(runDir);
    const added = after.calls.slice(before.calls.length);
    expect(after.calls.slice(0, before.calls.length)).toEqual(before.calls);
    expect(added.length).toBeGreaterThan(0);
    const addedYuan = summarizeEntries(added).totalYuan;
    expect(after.totalYuan).toBe(summarizeEntries([...before.calls, ...added]).totalYuan);
    expect(after.totalYuan).toBeCloseTo(before.totalYuan + addedYuan, 8);
    expect(second.cost.budget?.spentYuan).toBe(after.totalYuan);
    expect(after.totalYuan).toBeLessThanOrEqual(0.03);
    expect(after.byTag.step).toEqual(summarizeEntries(after.calls).byTag.step);
  });
});
