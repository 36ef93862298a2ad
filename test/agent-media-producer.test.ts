import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BudgetExceededError } from "../src/errors.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { probeImage, wavDurationS } from "../src/media/probe.js";
import { startAgentHarness, type AgentHarness } from "./agent-harness.js";

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness();
});
afterAll(async () => {
  await harness.close();
});

const BRIEF = "Generate an image of a red lantern at night and compose calm instrumental music for it.";

describe("media-producer against the local gateway", () => {
  it("makes an image and music, saves them in its workspace and lists them in its answer", async () => {
    const run = await harness.run("media-producer", BRIEF);
    expect(run.outcome.status).toBe("answered");
    expect(run.outcome.toolCalls.map((call) => [call.name, call.failed])).toEqual([
      ["generate_image", false],
      ["compose_music", false],
    ]);
    const image = JSON.parse(run.outcome.toolCalls[0]!.result) as { path: string; width: number; height: number };
    const music = JSON.parse(run.outcome.toolCalls[1]!.result) as { clips: Array<{ path: string }> };
    expect(image.path).toMatch(/^images\/.+\.png$/);
    expect(probeImage(await readFile(path.join(run.workspace, image.path)))).toMatchObject({
      format: "png",
      width: image.width,
      height: image.height,
    });
    expect(music.clips).toHaveLength(2);
    for (const clip of music.clips)
      expect(wavDurationS(await readFile(path.join(run.workspace, clip.path)))).toBeGreaterThan(0);
    expect((await readdir(path.join(run.workspace, "music"))).length).toBe(2);
    if (run.outcome.status !== "answered") return;
    expect(run.outcome.answer).toContain(image.path);
    // The image bytes never reach the model or the transcript, only the path.
    for (const event of run.events) expect(JSON.stringify(event)).not.toMatch(/base64/);
  });

  it("bills the agent's turns, the image and the music job into one ledger, tagged by tool", async () => {
    const run = await harness.run("media-producer", BRIEF);
    const summary = run.ledger.summary();
    expect(summary.byModel["gamma-2.5-flash-image"]).toMatchObject({ calls: 1, images: 1, yuan: 0.42 });
    expect(summary.byModel["music:generate"]).toMatchObject({ calls: 1, yuan: 2 });
    expect(summary.byModel["alpha-sonnet-4-6"]?.calls).toBe(run.outcome.steps);
    expect(Object.keys(summary.byTag.tool ?? {}).sort()).toEqual(["compose_music", "generate_image"]);
    expect(summary.byTag.agent?.["media-producer"]?.calls).toBe(run.ledger.entries().length);
    expect(summary.complete).toBe(true);
  });

  it("stops the run, rather than asking the model to go on, when the budget cannot pay for the image", async () => {
    // Enough to reserve the agent's first turn (about ¥0.37 with its 2048-token reply bound), not a ¥0.42 image after it.
    const ledger = new CostLedger({ maxYuan: 0.4 });
    const failure = harness.run("media-producer", BRIEF, { ledger });
    await expect(failure).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(failure).rejects.toThrow(/Raise --budget/);
    expect(ledger.summary().totalYuan).toBeLessThanOrEqual(0.4);
    expect(ledger.entries().map((entry) => entry.modelRequested)).toEqual(["alpha-sonnet-4-6"]);
  });
});
