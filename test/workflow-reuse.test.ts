// Runs that take the finished steps of earlier runs by step key (run --reuse, rerun, runWorkflow({ reuse })),
// against a real local gateway whose billing says what each run paid.
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { hostname } from "node:os";
import { beforeAll, describe, expect, it } from "vitest";
import { loadWorkflow, readJournal, rerunWorkflow, runWorkflow, type JournalRecord } from "../src/workflow/index.js";
import { gatewayOptions, readJson, recordsOf, runText, tempDir, type TestRun, useGateway } from "./workflow-harness.js";

const gateway = useGateway();
const LAUNCH_KIT = path.resolve("workflows/launch-kit.yaml");

async function journalOf(runDir: string): Promise<readonly JournalRecord[]> {
  return (await readJournal(path.join(runDir, "journal.jsonl"))).records;
}

async function artifactHashes(runDir: string): Promise<Record<string, string>> {
  const folder = path.join(runDir, "artifacts");
  const names = (await readdir(folder)).filter((name) => !name.startsWith("."));
  const hashes: Record<string, string> = {};
  for (const name of names)
    hashes[name] = createHash("sha256")
      .update(await readFile(path.join(folder, name)))
      .digest("hex");
  return hashes;
}

/** Runs a workflow file against the suite's gateway and returns the run and what the gateway billed for it. */
async function billedRun(file: string, extra: Parameters<typeof runWorkflow>[1] = {}) {
  const before = gateway.current.stats().billedYuan;
  const workflow = await loadWorkflow(file);
  const outDir = path.join(await tempDir(), "run");
  const result = await runWorkflow(workflow, gatewayOptions(gateway.current, { outDir, ...extra }));
  return { result, billedYuan: gateway.current.stats().billedYuan - before, journal: await journalOf(outDir) };
}

// Two whole launch-kit runs take tens of seconds on a busy machine, hence the test's own timeout.
describe("launch-kit rerun after changing only the last step's prompt", () => {
  it("pays at most 15% of the first run and keeps every unchanged output and artifact byte for byte", async () => {
    const first = await billedRun(LAUNCH_KIT);
    expect(first.result.status).toBe("done");
    const folder = await tempDir("svc-flow-edit-");
    const edited = path.join(folder, "launch-kit.yaml");
    const text = await readFile(LAUNCH_KIT, "utf8");
    await writeFile(edited, text.replace("say why in one sentence", "say why in two short sentences"));
    expect(await readFile(edited, "utf8")).not.toBe(text);

    const second = await billedRun(edited, { reuse: [first.result.runDir] });
    expect(second.result.status).toBe("done");
    expect(second.billedYuan).toBeGreaterThan(0);
    expect(second.billedYuan).toBeLessThanOrEqual(first.billedYuan * 0.15);
    const outputs = (await readJson(first.result.runDir, "outputs.json")) as Record<string, unknown>;
    const again = (await readJson(second.result.runDir, "outputs.json")) as Record<string, unknown>;
    for (const name of ["taglines", "posters", "jingle", "price"]) expect(again[name]).toEqual(outputs[name]);
    expect(await artifactHashes(second.result.runDir)).toEqual(await artifactHashes(first.result.runDir));
    const ran = recordsOf(second.journal, "step-finished").filter((record) => record.reused === undefined);
    expect(ran.filter((record) => !["map", "parallel"].includes(record.kind)).map((record) => record.key)).toEqual([
      "review",
    ]);
  }, 180_000);
});

const KEYED = `version: 1
name: keyed
inputs:
  product: { type: string, default: "a solar lantern" }
  colours: { type: array, default: ["red", "blue", "green"] }
defaults: { model: alpha-sonnet-4-6, maxTokens: 60 }
steps:
  - id: name
    uses: chat
    with: { prompt: "A product name for \${{ inputs.product }}" }
  - id: blurb
    uses: chat
    with: { prompt: "One line about \${{ steps.name.output.text }}" }
  - id: other
    uses: chat
    with: { prompt: "A fact about the colour wheel" }
  - id: swatches
    map: \${{ inputs.colours }}
    as: colour
    steps:
      - id: swatch
        uses: image
        with: { prompt: "A \${{ colour }} colour swatch" }
`;

/** Leaf step instances a run sent calls for, and those it took from an earlier run. */
function split(journal: readonly JournalRecord[]): { ran: string[]; reused: string[] } {
  const leaves = recordsOf(journal, "step-finished").filter((record) => !["map", "parallel"].includes(record.kind));
  return {
    ran: leaves.filter((record) => record.reused === undefined).map((record) => record.key),
    reused: leaves.filter((record) => record.reused !== undefined).map((record) => record.key),
  };
}

describe("runs that reuse an earlier run by step key", () => {
  let base: TestRun;
  beforeAll(async () => {
    base = await runText(gateway.current, KEYED);
  });

  it("sends nothing and pays nothing when nothing changed", async () => {
    const before = gateway.current.stats().keys[0]!.requests.total;
    const again = await runText(gateway.current, KEYED, { reuse: [base.result.runDir] });
    expect(again.result.status).toBe("done");
    expect(gateway.current.stats().keys[0]!.requests.total).toBe(before);
    expect(split(again.journal).ran).toEqual([]);
    expect(again.result.outputs).toEqual(base.result.outputs);
    const reused = again.events.filter((event) => event.type === "step-finished" && event.reused !== undefined);
    expect(reused).toHaveLength(6);
  });

  it("reruns the steps that read a changed input and nothing else", async () => {
    const again = await runText(gateway.current, KEYED, {
      reuse: [base.result.runDir],
      inputs: { product: "a folding kettle" },
    });
    expect(split(again.journal).ran.sort()).toEqual(["blurb", "name"]);
  });

  it("reruns only the map items whose item changed", async () => {
    const again = await runText(gateway.current, KEYED, {
      reuse: [base.result.runDir],
      inputs: { colours: ["red", "blue", "yellow"] },
    });
    const { ran, reused } = split(again.journal);
    expect(ran).toEqual(["swatches[2].swatch"]);
    expect(reused.sort()).toEqual(["blurb", "name", "other", "swatches[0].swatch", "swatches[1].swatch"]);
    const items = recordsOf(again.journal, "item-finished").sort((left, right) => left.index - right.index);
    expect(items.map((item) => item.reused !== undefined)).toEqual([true, true, false]);
  });

  it("reruns only the changed item of a map whose list is written in the file", async () => {
    const literal = KEYED.replace("map: ${{ inputs.colours }}", 'map: ["red", "blue", "green"]');
    const first = await runText(gateway.current, literal);
    const edited = await runText(
      gateway.current,
      literal.replace('map: ["red", "blue", "green"]', 'map: ["red", "blue", "violet"]'),
      {
        reuse: [first.result.runDir],
      },
    );
    const { ran, reused } = split(edited.journal);
    expect(ran).toEqual(["swatches[2].swatch"]);
    expect(reused.sort()).toEqual(["blurb", "name", "other", "swatches[0].swatch", "swatches[1].swatch"]);
  });

  it("reruns every item of a map whose list comes from a step that ran again", async () => {
    const fromStep = KEYED.replace("${{ inputs.colours }}", "${{ [steps.name.output.text, 'blue'] }}");
    const first = await runText(gateway.current, fromStep);
    const again = await runText(gateway.current, fromStep, {
      reuse: [first.result.runDir],
      inputs: { product: "a folding kettle" },
    });
    expect(split(again.journal).ran.sort()).toEqual(["blurb", "name", "swatches[0].swatch", "swatches[1].swatch"]);
  });

  it("reruns a step whose model changed and every step that reads it", async () => {
    const edited = KEYED.replace(
      'with: { prompt: "A product name for',
      'with: { model: beta-4o-mini, prompt: "A product name for',
    );
    expect(edited).not.toBe(KEYED);
    const again = await runText(gateway.current, edited, { reuse: [base.result.runDir] });
    expect(split(again.journal).ran.sort()).toEqual(["blurb", "name"]);
  });

  it("runs the rerunFrom step and everything that reads it again, whatever their keys", async () => {
    const again = await runText(gateway.current, KEYED, { reuse: [base.result.runDir], rerunFrom: "name" });
    expect(split(again.journal).ran.sort()).toEqual(["blurb", "name"]);
  });

  it("runs a rerunFrom map's every item again", async () => {
    const again = await runText(gateway.current, KEYED, { reuse: [base.result.runDir], rerunFrom: "swatches" });
    expect(split(again.journal).ran.sort()).toEqual(["swatches[0].swatch", "swatches[1].swatch", "swatches[2].swatch"]);
  });

  it("always runs a step marked reuse: false, and the steps that read it", async () => {
    const text = KEYED.replace("  - id: name\n    uses: chat\n", "  - id: name\n    uses: chat\n    reuse: false\n");
    expect(text).not.toBe(KEYED);
    const first = await runText(gateway.current, text);
    const again = await runText(gateway.current, text, { reuse: [first.result.runDir] });
    expect(split(again.journal).ran.sort()).toEqual(["blurb", "name"]);
  });

  it("journals every finished step with the same key in both runs when nothing changed", async () => {
    const again = await runText(gateway.current, KEYED, { reuse: [base.result.runDir] });
    const keys = (journal: readonly JournalRecord[]) =>
      Object.fromEntries(recordsOf(journal, "step-finished").map((record) => [record.key, record.stepKey]));
    expect(keys(again.journal)).toEqual(keys(base.journal));
    expect(Object.values(keys(base.journal)).every((key) => /^[0-9a-f]{64}$/.test(key ?? ""))).toBe(true);
  });

  it("refuses a --reuse folder that holds no run, before anything is sent", async () => {
    const before = gateway.current.stats().keys[0]!.requests.total;
    const empty = await tempDir();
    const outDir = path.join(await tempDir(), "run");
    await expect(runText(gateway.current, KEYED, { reuse: [empty], outDir })).rejects.toMatchObject({
      code: "invalid_run_dir",
      message: expect.stringContaining("is not a run directory"),
    });
    expect(gateway.current.stats().keys[0]!.requests.total).toBe(before);
    await expect(readdir(outDir)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses a --reuse run directory a live run holds, and leaves its lock as it was", async () => {
    const live = await runText(gateway.current, KEYED);
    const lock = path.join(live.result.runDir, "run.lock");
    const owner = `${JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), token: "t" })}\n`;
    await writeFile(lock, owner);
    await expect(runText(gateway.current, KEYED, { reuse: [live.result.runDir] })).rejects.toMatchObject({
      code: "run_dir_taken",
      message: expect.stringContaining("still being written by a live run"),
    });
    expect(await readFile(lock, "utf8")).toBe(owner);
  });

  it("reruns a run from code with a changed input, reusing the rest", async () => {
    const outDir = path.join(await tempDir(), "rerun");
    const result = await rerunWorkflow(
      base.result.runDir,
      gatewayOptions(gateway.current, { outDir, inputs: { colours: ["red", "blue", "green", "white"] } }),
    );
    expect(result.status).toBe("done");
    expect(split(await journalOf(outDir)).ran).toEqual(["swatches[3].swatch"]);
  });
});
