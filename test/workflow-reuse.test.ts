// Runs that take the finished steps of earlier runs by step key (run --reuse, rerun, runWorkflow({ reuse })),
// against a real local gateway whose billing says what each run paid.
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadWorkflow, runWorkflow, type JournalRecord } from "../src/workflow/index.js";
import { gatewayOptions, readJson, recordsOf, tempDir, useGateway } from "./workflow-harness.js";
import { readJournal } from "../src/workflow/index.js";

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
  });
});
