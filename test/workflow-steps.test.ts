import { access, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { encodePng } from "../src/media/png.js";
import { probeImage } from "../src/media/probe.js";
import { createRaster } from "../src/media/raster.js";
import { defineAgent } from "../agents/index.js";
import { parseWorkflow } from "../src/workflow/index.js";
import { billed, readJson, recordsOf, runText, tempDir, useGateway } from "./workflow-harness.js";
import { minimalMp4, silentMp3 } from "./media-builders.js";

const gateway = useGateway();
const HEAD = "version: 1\ndefaults:\n  model: alpha-sonnet-4-6\n  maxTokens: 300\nsteps:\n";

describe("workflow step kinds against the local gateway", () => {
  it("runs a chat step and journals its output, attempts and cost", async () => {
    const { result, journal } = await runText(
      gateway.current,
      `${HEAD}  - id: hello\n    uses: chat\n    with: { system: "Be brief.", prompt: "Say hello to a lantern maker." }\n`,
    );
    expect(result.status).toBe("done");
    const output = result.outputs?.hello as { text: string; model: string };
    expect(output.text.length).toBeGreaterThan(0);
    expect(output.model).toBe("alpha-sonnet-4-6");
    const [finished] = recordsOf(journal, "step-finished");
    expect(finished).toMatchObject({ key: "hello", kind: "chat", attempts: 1, model: "alpha-sonnet-4-6" });
    expect(finished!.costYuan).toBeGreaterThan(0);
    expect(recordsOf(journal, "cost")).toHaveLength(1);
  });

  it("gives the parsed, schema-checked value as the output of a chat step with a schema", async () => {
    const { result } = await runText(
      gateway.current,
      `${HEAD}  - id: ideas\n    uses: chat\n    with:\n      prompt: "Three taglines for a solar lantern"\n      schema: { type: array, items: { type: string }, minItems: 3, maxItems: 3 }\n`,
    );
    const ideas = result.outputs?.ideas;
    expect(Array.isArray(ideas) && ideas.length === 3 && ideas.every((idea) => typeof idea === "string")).toBe(true);
  });

  it("sends images, audio and video from files, and a data URI, to a model that takes them", async () => {
    const folder = await tempDir("svc-flow-media-");
    await writeFile(path.join(folder, "photo.png"), encodePng(createRaster(32, 24, [200, 40, 40, 255])));
    await writeFile(path.join(folder, "tone.mp3"), silentMp3({ frames: 40 }));
    await writeFile(path.join(folder, "clip.mp4"), minimalMp4({ seconds: 2, width: 64, height: 48 }));
    const dataUri = `data:image/png;base64,${encodePng(createRaster(8, 8, [0, 0, 255, 255])).toString("base64")}`;
    const { result } = await runText(
      gateway.current,
      `${HEAD}  - id: look\n    uses: chat\n    with:\n      model: gamma-2.5-flash\n      prompt: "Describe the picture, the sound and the video."\n      images: [photo.png, "${dataUri}"]\n      audio: [tone.mp3]\n      video: [clip.mp4]\n`,
      { baseDir: folder },
    );
    expect(result.status).toBe("done");
    expect((result.outputs?.look as { text: string }).text.length).toBeGreaterThan(0);
    // Media is billed as prompt tokens: 2 s of video alone is several hundred.
    expect(billed(gateway.current).at(-1)?.promptTokens).toBeGreaterThan(600);
  });

  it("refuses audio that is not mp3 or wav before the run starts, naming the conversion", async () => {
    const folder = await tempDir("svc-flow-media-");
    await writeFile(path.join(folder, "clip.ogg"), Buffer.from("OggS not really"));
    const before = billed(gateway.current).length;
    const run = runText(
      gateway.current,
      `version: 1\ninputs: { clip: { type: string } }\nsteps:\n  - id: listen\n    uses: chat\n    with: { model: gamma-2.5-flash, prompt: "What is this?", audio: ["\${{ inputs.clip }}"] }\n`,
      { baseDir: folder, inputs: { clip: "clip.ogg" } },
    );
    await expect(run).rejects.toMatchObject({
      code: "invalid_workflow",
      message: expect.stringMatching(/not mp3 or wav.*ffmpeg -i clip\.ogg clip\.mp3/),
    });
    expect(billed(gateway.current)).toHaveLength(before);
  });

  it("lets a chat step call tools and lists the calls in its output", async () => {
    const { result } = await runText(
      gateway.current,
      `${HEAD}  - id: sum\n    uses: chat\n    with: { prompt: "Use the calculator: what is 12.5 * 4?", tools: [calculator] }\n`,
    );
    const output = result.outputs?.sum as { text: string; toolCalls: Array<{ name: string; result: string }> };
    expect(output.toolCalls).toEqual([expect.objectContaining({ name: "calculator", result: "50" })]);
    expect(output.text).toContain("50");
  });

  it("generates an image and edits it, keeping both as files and only references in outputs and journal", async () => {
    const { result, journal } = await runText(
      gateway.current,
      `${HEAD}  - id: poster\n    uses: image\n    with: { prompt: "A red lantern on a table" }\n  - id: edit\n    uses: image\n    with: { prompt: "Make it blue", source: "\${{ steps.poster.output }}" }\n`,
    );
    expect(result.status).toBe("done");
    for (const id of ["poster", "edit"]) {
      const image = result.outputs?.[id] as { artifact: string; mime: string; bytes: number };
      expect(image.artifact).toMatch(/^artifacts\/[0-9a-f]{64}\.png$/);
      const bytes = await readFile(path.join(result.runDir, image.artifact));
      expect(bytes.length).toBe(image.bytes);
      expect(probeImage(bytes)?.format).toBe("png");
    }
    const text = JSON.stringify(journal) + JSON.stringify(await readJson(result.runDir, "outputs.json"));
    expect(text).not.toMatch(/base64/);
  });

  it("submits a music job once, journals the clip ids with its bill before polling, and downloads the clips", async () => {
    const before = billed(gateway.current).filter((entry) => entry.kind === "music").length;
    const { result, journal } = await runText(
      gateway.current,
      `${HEAD}  - id: jingle\n    uses: music\n    with: { prompt: "Upbeat jingle", instrumental: true }\n`,
    );
    const clips = (result.outputs?.jingle as { clips: Array<{ id: string; artifact: string; mime: string }> }).clips;
    expect(clips).toHaveLength(2);
    for (const clip of clips) await access(path.join(result.runDir, clip.artifact));
    const bill = journal.findIndex((record) => record.type === "cost" && record.entry.kind === "music");
    expect(bill).toBeGreaterThan(0);
    expect(bill).toBeLessThan(journal.findIndex((record) => record.type === "step-finished"));
    expect(journal[bill]).toMatchObject({
      entry: { yuan: 2 },
      musicJob: { key: "jingle", operation: "generate", clipIds: clips.map((clip) => clip.id) },
    });
    expect(billed(gateway.current).filter((entry) => entry.kind === "music").length - before).toBe(1);
  });

  it("writes lyrics with the lyrics operation", async () => {
    const { result } = await runText(
      gateway.current,
      `${HEAD}  - id: words\n    uses: music\n    with: { operation: lyrics, prompt: "A song about lanterns" }\n`,
    );
    expect((result.outputs?.words as { text: string }).text.length).toBeGreaterThan(0);
  });

  it("runs an agent made of inline tools", async () => {
    const { result } = await runText(
      gateway.current,
      `${HEAD}  - id: review\n    uses: agent\n    with: { tools: [calculator], prompt: "Price a bundle: what is 19.99 * 3?" }\n`,
    );
    const output = result.outputs?.review as { text: string; toolCalls: Array<{ name: string }> };
    expect(output.toolCalls.map((call) => call.name)).toContain("calculator");
    expect(output.text).toContain("59.97");
  });

  it("runs an agent named from the agents given to the run, billing its turns to the step", async () => {
    const pricer = defineAgent({
      name: "pricer",
      description: "Prices things",
      system: "You price things with the calculator.",
      tools: ["calculator"],
      model: "beta-4o",
    });
    const { result, journal } = await runText(
      gateway.current,
      `${HEAD}  - id: review\n    uses: agent\n    with: { agent: pricer, prompt: "What is 2 * 21?" }\n`,
      {
        agents: [pricer],
        agentNames: ["pricer"],
      },
    );
    expect(result.outputs?.review).toMatchObject({
      text: expect.stringContaining("42"),
      model: "beta-4o",
      toolCalls: [expect.objectContaining({ name: "calculator", result: "42" })],
    });
    const costs = recordsOf(journal, "cost").map((record) => record.entry);
    expect(costs.length).toBeGreaterThanOrEqual(2);
    expect(costs.every((entry) => entry.tags.step === "review" && entry.modelRequested === "beta-4o")).toBe(true);
  });

  it("checks agent names against the ready agents in agents/ when the file loads", () => {
    expect(() =>
      parseWorkflow(`${HEAD}  - id: a\n    uses: agent\n    with: { agent: data-analystt, prompt: hi }\n`),
    ).toThrow(/Unknown agent "data-analystt"\. Did you mean "data-analyst"\?/);
  });

  it("calls one tool with rendered input and parses JSON text it returns", async () => {
    const { result } = await runText(
      gateway.current,
      `version: 1\ninputs: { n: { type: number, default: 4 } }\nsteps:\n  - id: sum\n    uses: tool\n    with: { tool: calculator, input: { expression: "2 + 3 * \${{ inputs.n }}" } }\n  - id: save\n    uses: tool\n    with: { tool: write_file, input: { path: out.txt, content: "\${{ steps.sum.output }}" } }\n`,
    );
    expect(result.outputs).toMatchObject({ sum: "14" });
    expect(await readFile(path.join(result.runDir, "workspace", "out.txt"), "utf8")).toBe("14");
  });

  it("skips a step whose if: is false and runs a parallel's children at once", async () => {
    const { result, journal } = await runText(
      gateway.current,
      `version: 1\ninputs: { go: { type: boolean, default: false } }\nsteps:\n  - id: maybe\n    if: \${{ inputs.go }}\n    uses: tool\n    with: { tool: calculator, input: { expression: "1" } }\n  - id: both\n    parallel:\n      - id: one\n        uses: tool\n        with: { tool: calculator, input: { expression: "1 + 1" } }\n      - id: two\n        uses: tool\n        with: { tool: calculator, input: { expression: "2 + 2" } }\n  - id: after\n    uses: tool\n    with: { tool: calculator, input: { expression: "\${{ steps.one.output }} * \${{ steps.two.output }} + \${{ steps.maybe.output ?? 0 }}" } }\n`,
    );
    expect(result.outputs).toEqual({ maybe: undefined, both: { one: "2", two: "4" }, one: "2", two: "4", after: "8" });
    expect(recordsOf(journal, "step-skipped").map((record) => record.key)).toEqual(["maybe"]);
  });
});
