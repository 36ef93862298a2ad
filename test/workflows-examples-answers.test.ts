// Every shipped workflow, run on the local gateway with its defaults, gives outputs that read as
// answers: no placeholder strings, no list that repeats itself, one distinct image per prompt.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalGateway } from "../src/server/index.js";
import { loadWorkflow, runWorkflow } from "../src/workflow/index.js";
import { gatewayOptions, readJson, tempDir, useGateway } from "./workflow-harness.js";

const FOLDER = path.join(import.meta.dirname, "..", "workflows");
// A workflow with an approval step waits for a person (exit 3); its outputs come after `svc-flow approve`.
const FILES = (
  await Promise.all(
    (
      await readdir(FOLDER)
    )
      .filter((name) => name.endsWith(".yaml"))
      .sort()
      .map(async (name) => ({ name, text: await readFile(path.join(FOLDER, name), "utf8") })),
  )
)
  .filter((file) => !/uses:\s*approval/.test(file.text))
  .map((file) => file.name);
const gateway = useGateway();

// What the simulator used to fill fields with when it read nothing from the prompt.
const PLACEHOLDERS = [
  /^example$/i,
  /example\.com/,
  /^A Short Title$/,
  /^A short description\.$/,
  /^notes\.txt$/,
  /Listen Voice Memo Title/,
  /\b[A-Z]{2}-(?!\d)/,
];

async function outputsOf(name: string): Promise<{ outputs: unknown; runDir: string }> {
  const workflow = await loadWorkflow(path.join(FOLDER, name));
  const runDir = path.join(await tempDir(), name.replace(/\.yaml$/, ""));
  const result = await runWorkflow(workflow, gatewayOptions(gateway.current, { outDir: runDir }));
  expect(result.error, name).toBeUndefined();
  expect(result.status, name).toBe("done");
  const outputs = await readJson(runDir, "outputs.json");
  // A batch keeps one line per row beside a summary.
  const file = (outputs as { items?: { file?: string } }).items?.file;
  if (file === undefined) return { outputs, runDir };
  const rows = (await readFile(path.join(runDir, file), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { output: unknown });
  return { outputs: rows.map((row) => row.output), runDir };
}

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) strings(item, into);
  return into;
}

function stringLists(value: unknown, into: string[][] = []): string[][] {
  if (Array.isArray(value)) {
    if (value.length > 1 && value.every((item) => typeof item === "string")) into.push(value as string[]);
    for (const item of value) stringLists(item, into);
  } else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) stringLists(item, into);
  }
  return into;
}

describe("the example workflows' outputs", () => {
  it.each(FILES)("%s holds no placeholder strings and no list that repeats an item", async (name) => {
    const { outputs } = await outputsOf(name);
    const texts = strings(outputs).filter(
      (text) => !text.startsWith("artifacts/") && !/^https?:\/\/127\.0\.0\.1/.test(text),
    );
    expect(texts.length, name).toBeGreaterThan(0);
    for (const text of texts)
      for (const pattern of PLACEHOLDERS) expect(text, `${name}: ${pattern}`).not.toMatch(pattern);
    for (const list of stringLists(outputs)) expect(new Set(list).size, JSON.stringify(list)).toBe(list.length);
  });

  it("launch-kit gives three taglines about the product, a different poster for each, and a review that used the calculator", async () => {
    const { outputs, runDir } = await outputsOf("launch-kit.yaml");
    const { taglines, posters } = outputs as { taglines: string[]; posters: Array<{ poster: { artifact: string } }> };
    expect(taglines).toHaveLength(3);
    for (const tagline of taglines) expect(tagline).toMatch(/solar lantern/i);
    expect(new Set(posters.map((entry) => entry.poster.artifact)).size).toBe(3);
    const journal = (await readFile(path.join(runDir, "journal.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const review = journal.find((record) => record.type === "step-finished" && record.id === "review") as {
      output: { toolCalls: Array<{ name: string; failed: boolean; result: string }> };
    };
    const calls = review.output.toolCalls.filter((call) => call.name === "calculator");
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => !call.failed)).toBe(true);
    // Price 30, unit cost 12.5: a gross margin of 58.3 %.
    expect(calls.map((call) => call.result)).toContain("58.3");
  });

  it("photo-catalogue captions each photo by what its pixels show", async () => {
    const { outputs } = await outputsOf("photo-catalogue.yaml");
    const entries = (outputs as { entries: Array<{ file: string; entry: { caption: string; colours: string[] } }> })
      .entries;
    const forest = entries.find((entry) => entry.file.endsWith("forest.png"))!.entry;
    expect(forest.colours[0]).toBe("green");
    expect(forest.caption).toMatch(/green/);
    expect(new Set(entries.map((entry) => entry.entry.caption)).size).toBe(entries.length);
  });

  it("photo-catalogue introduces the collection by name from the captions it made", async () => {
    const { outputs } = await outputsOf("photo-catalogue.yaml");
    const { intro, entries } = outputs as { intro: string; entries: Array<{ entry: { caption: string } }> };
    expect(intro).toMatch(/^'Spring shoot' gathers three photos: /);
    for (const { entry } of entries)
      expect(intro.toLowerCase()).toContain(entry.caption.replace(/\.$/, "").toLowerCase());
  });
});

describe("the simulated image model", () => {
  it("draws different pictures for different prompts and the same picture for the same prompt", async () => {
    const local = await startLocalGateway({ port: 0 });
    try {
      const draw = async (prompt: string) => {
        const response = await fetch(`${local.baseURL}/chat/completions`, {
          method: "POST",
          headers: { authorization: "Bearer sk-local-demo", "content-type": "application/json" },
          body: JSON.stringify({ model: "gamma-2.5-flash-image", messages: [{ role: "user", content: prompt }] }),
        });
        const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
        return /data:image\/png;base64,([^)]+)/.exec(body.choices[0]!.message.content)![1]!;
      };
      const first = await draw(
        "A bold launch poster for a solar lantern with the headline: Take the solar lantern anywhere.",
      );
      const second = await draw(
        "A bold launch poster for a solar lantern with the headline: Your day, powered by a solar lantern.",
      );
      expect(second).not.toBe(first);
      expect(
        await draw("A bold launch poster for a solar lantern with the headline: Take the solar lantern anywhere."),
      ).toBe(first);
    } finally {
      await local.close();
    }
  });
});
