// The shipped example workflows: every file in workflows/ loads clean, and launch-kit runs end to
// end on the local gateway with its defaults, inside its own budget.
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadWorkflow, runWorkflow, type WorkflowDefinition } from "../src/workflow/index.js";
import { gatewayOptions, readJson, tempDir, useGateway } from "./workflow-harness.js";

const FOLDER = path.join(import.meta.dirname, "..", "workflows");
const gateway = useGateway();

async function exampleFiles(): Promise<string[]> {
  return (await readdir(FOLDER)).filter((name) => name.endsWith(".yaml") || name.endsWith(".yml")).sort();
}

function kindsOf(steps: WorkflowDefinition["steps"], into = new Set<string>()): Set<string> {
  for (const step of steps) {
    if ("uses" in step) into.add(step.uses);
    if ("map" in step) kindsOf(step.steps, into.add("map"));
    if ("parallel" in step) kindsOf(step.parallel, into.add("parallel"));
    if (step.if !== undefined) into.add("if");
    if ("with" in step) {
      for (const field of ["images", "audio", "schema", "source", "tools"] as const)
        if (field in step.with) into.add(`${step.uses}.${field}`);
    }
  }
  return into;
}

describe("the example workflows", () => {
  it("all load (the checks `svc-flow validate` runs), set a budget and maxTokens, and together use every step kind", async () => {
    const files = await exampleFiles();
    expect(files).toEqual(
      expect.arrayContaining(["launch-kit.yaml", "photo-catalogue.yaml", "voice-memo-digest.yaml"]),
    );
    const kinds = new Set<string>();
    for (const file of files) {
      const workflow = await loadWorkflow(path.join(FOLDER, file));
      expect(workflow.definition.budget?.maxYuan, file).toBeGreaterThan(0);
      expect(workflow.definition.defaults?.maxTokens, file).toBeGreaterThan(0);
      kindsOf(workflow.definition.steps, kinds);
    }
    for (const kind of [
      "chat",
      "chat.images",
      "chat.audio",
      "chat.schema",
      "image",
      "image.source",
      "music",
      "agent",
      "agent.tools",
      "tool",
      "map",
      "parallel",
      "if",
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it("ship small, real media", async () => {
    for (const name of ["memo.wav", "sunset.png", "forest.png", "lantern.png"]) {
      const { size } = await stat(path.join(FOLDER, "media", name));
      expect(size, name).toBeLessThan(100_000);
    }
  });

  it("runs launch-kit as written: taglines, a generated-then-edited poster per tagline, a jingle, a price and a review", async () => {
    const workflow = await loadWorkflow(path.join(FOLDER, "launch-kit.yaml"));
    const outDir = path.join(await tempDir(), "kit");
    const result = await runWorkflow(workflow, gatewayOptions(gateway.current, { outDir }));
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("done");
    const outputs = (await readJson(outDir, "outputs.json")) as {
      taglines: string[];
      posters: Array<{ tagline: string; poster: { artifact: string; mime: string } }>;
      jingle: Array<{ artifact: string }>;
      price: string;
      review: string;
    };
    expect(outputs.taglines.length).toBeGreaterThan(0);
    expect(outputs.posters).toHaveLength(outputs.taglines.length);
    for (const [index, entry] of outputs.posters.entries()) {
      expect(entry.tagline).toBe(outputs.taglines[index]);
      expect(entry.poster.mime).toBe("image/png");
      expect((await stat(path.join(outDir, entry.poster.artifact))).size).toBeGreaterThan(0);
    }
    expect(outputs.jingle.length).toBeGreaterThan(0);
    expect((await stat(path.join(outDir, outputs.jingle[0]!.artifact))).size).toBeGreaterThan(0);
    expect(outputs.price).toBe("30");
    expect(outputs.review.length).toBeGreaterThan(0);
    // Two image calls per poster, one music job: the money is where the workflow says it is.
    const cost = (await readJson(outDir, "cost.json")) as {
      totalYuan: number;
      byModel: Record<string, { calls: number }>;
    };
    expect(cost.byModel["gamma-2.5-flash-image"]?.calls).toBe(2 * outputs.taglines.length);
    expect(cost.byModel["music:generate"]?.calls).toBe(1);
    expect(cost.totalYuan).toBeLessThanOrEqual(workflow.definition.budget!.maxYuan);
  });
});
