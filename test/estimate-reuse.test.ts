import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { WorkflowEstimate } from "../src/cli/estimate/estimate-workflow.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { recordsOf, runText, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();

const KIT = `version: 1
name: kit
inputs:
  product: { type: string, default: "a solar lantern" }
steps:
  - id: pitch
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line pitch for \${{ inputs.product }}.", maxTokens: 60 }
  - id: posters
    map: ["dawn", "dusk"]
    as: scene
    steps:
      - id: poster
        uses: image
        with: { prompt: "Poster of \${{ inputs.product }} at \${{ scene }}" }
  - id: caption
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Caption for \${{ steps.posters.output[0].artifact }}", maxTokens: 40 }
  - id: review
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Improve this pitch: \${{ steps.pitch.output.text }}", maxTokens: 80 }
`;

async function estimate(folder: string, text: string, ...argv: string[]): Promise<WorkflowEstimate> {
  await writeFile(path.join(folder, "next.yaml"), text);
  const result = await runCli(["estimate", "next.yaml", "--json", ...argv], {
    env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
    cwd: folder,
  });
  expect(result.code, result.stderr.text).toBe(0);
  return JSON.parse(result.stdout.text) as WorkflowEstimate;
}

// Runs KIT, estimates `edited` with --reuse of that run, then runs `edited` with reuse.
async function estimateThenRerun(edited: string) {
  const folder = await tempDir("svc-flow-estimate-reuse-");
  const first = path.join(folder, "first");
  await runText(gateway.current, KIT, { outDir: first });
  const bound = await estimate(folder, edited, "--reuse", "first");
  const rerun = await runText(gateway.current, edited, { outDir: path.join(folder, "second"), reuse: [first] });
  const reused = recordsOf(rerun.journal, "step-finished")
    .filter((record) => record.reused !== undefined)
    .map((record) => record.key);
  return { bound, rerun, reused };
}

describe("svc-flow estimate --reuse", () => {
  it("predicts exactly the steps a rerun with only the last prompt changed takes, and bounds what it pays", async () => {
    const { bound, rerun, reused } = await estimateThenRerun(KIT.replace("Improve this pitch", "Shorten this pitch"));
    expect(bound.reuse?.reused.map((instance) => instance.key).sort()).toEqual(reused.sort());
    expect(reused.sort()).toEqual(["caption", "pitch", "posters[0].poster", "posters[1].poster"]);
    expect(bound.steps.find((row) => row.step === "review")).toMatchObject({ reused: 0, times: 1 });
    expect(bound.steps.find((row) => row.step === "posters.poster")).toMatchObject({ reused: 2, times: 0, maxYuan: 0 });
    expect(rerun.result.status).toBe("done");
    expect(rerun.result.cost.totalYuan).toBeLessThanOrEqual(bound.maxYuan);
    expect(bound.upperBound).toBe(true);
  });

  it("counts every step reading a changed one as running, as the rerun does", async () => {
    const { bound, rerun, reused } = await estimateThenRerun(KIT.replace("One line pitch", "A warm pitch"));
    expect(bound.reuse?.reused.map((instance) => instance.key).sort()).toEqual(reused.sort());
    // The pitch changed, so the review that reads it runs too; the posters and their caption do not read it.
    expect(reused.sort()).toEqual(["caption", "posters[0].poster", "posters[1].poster"]);
    expect(rerun.result.cost.totalYuan).toBeLessThanOrEqual(bound.maxYuan);
  });

  it("reuses nothing of a run of another workflow and prices it whole", async () => {
    const folder = await tempDir("svc-flow-estimate-reuse-");
    await runText(gateway.current, KIT.replace("a solar lantern", "a desk fan"), { outDir: path.join(folder, "fan") });
    const withReuse = await estimate(folder, KIT, "--reuse", "fan");
    const without = await estimate(folder, KIT);
    expect(withReuse.reuse).toEqual({ runDirs: [path.join(folder, "fan")], reused: [] });
    expect(withReuse.maxYuan).toBe(without.maxYuan);
  });

  it("shows the reused steps in its table at ¥0", async () => {
    const folder = await tempDir("svc-flow-estimate-reuse-");
    await runText(gateway.current, KIT, { outDir: path.join(folder, "first") });
    await writeFile(path.join(folder, "next.yaml"), KIT.replace("Improve this pitch", "Shorten this pitch"));
    const result = await runCli(["estimate", "next.yaml", "--reuse", "first"], { env: {}, cwd: folder });
    expect(result.code, result.stderr.text).toBe(0);
    const lines = result.stdout.text.split("\n");
    expect(lines[1]).toBe(
      `Reusing ${path.join(folder, "first")}: 4 step instances would be taken at ¥0; the rest is priced below.`,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^STEP\s+KIND\s+MODELS\s+REUSED\s+CALLS\s+MAX YUAN\s+UNPRICED$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^posters\.poster\s+image\s+\S+\s+all 2\s+0\s+¥0\.0000$/));
    expect(lines).toContainEqual(expect.stringMatching(/^review\s+chat\s+\S+\s+-\s+1\s+¥0\.\d{4}$/));
  });

  it("refuses a directory that is no run with exit 2", async () => {
    const folder = await tempDir("svc-flow-estimate-reuse-");
    await writeFile(path.join(folder, "next.yaml"), KIT);
    const result = await runCli(["estimate", "next.yaml", "--reuse", "nowhere"], { env: {}, cwd: folder });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/\[invalid_run_dir\]/);
  });
});
