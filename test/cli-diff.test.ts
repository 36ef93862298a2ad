import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { RunDirLock } from "../src/workflow/run/run-dir-lock.js";
import type { RunDiff } from "../src/workflow/run-diff/diff-runs.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { runText, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();

async function cli(argv: string[], cwd: string) {
  const { code, stdout, stderr } = await runCli(argv, {
    env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
    cwd,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const FIRST = `version: 1
name: kit
inputs:
  product: { type: string, default: "a solar lantern" }
  scenes: { type: array, default: ["dawn", "dusk"] }
steps:
  - id: pitch
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line pitch for \${{ inputs.product }}.", maxTokens: 60 }
  - id: posters
    map: \${{ inputs.scenes }}
    as: scene
    steps:
      - id: poster
        uses: image
        with: { prompt: "Poster of \${{ inputs.product }} at \${{ scene }}" }
  - id: tagline
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "A tagline for \${{ inputs.product }}.", maxTokens: 40 }
`;

// The pitch's prompt is edited and a step is added; the second run is given other scenes (below).
const SECOND = `${FIRST.replace("One line pitch", "A warm one line pitch")}  - id: closing
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Close the pitch: \${{ steps.pitch.output.text }}", maxTokens: 40 }
`;

let folder: string;
beforeAll(async () => {
  folder = await tempDir("svc-flow-diff-");
  await writeFile(path.join(folder, "first.yaml"), FIRST);
  await writeFile(path.join(folder, "second.yaml"), SECOND);
  for (const argv of [
    ["first.yaml", "--out", "a"],
    ["second.yaml", "--out", "b", "--input", 'scenes=["dawn", "noon"]'],
  ]) {
    const run = await cli(["run", ...argv], folder);
    expect(run.code, run.stderr).toBe(0);
  }
});

async function diffJson(...argv: string[]): Promise<RunDiff> {
  const result = await cli(["diff", "a", "b", "--json", ...argv], folder);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunDiff;
}

describe("svc-flow diff", () => {
  it("lists exactly the step instances that changed, were added or stayed the same, with each side's cost", async () => {
    const result = await cli(["diff", "a", "b"], folder);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^STEP\s+KIND\s+DIFF\s+WHAT\s+COST A\s+COST B$/));
    expect(lines).toContainEqual(expect.stringMatching(/^pitch\s+chat\s+changed\s+input, output\s+¥\d\.\d{4}\s+¥/));
    expect(lines).toContainEqual(expect.stringMatching(/^posters\[0\]\.poster\s+image\s+same\s+¥0\.4200\s+¥0\.4200$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^posters\[1\]\.poster\s+image\s+changed\s+input, output\s+¥0\.4200\s+¥0\.4200$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^tagline\s+chat\s+same\s+/));
    expect(lines).toContainEqual(expect.stringMatching(/^closing\s+chat\s+added\s+-\s+¥\d\.\d{4}$/));
    expect(result.stdout).toContain("2 changed, 1 added, 0 removed, 2 same.");
  });

  it("shows an edited prompt as sent and the changed text it led to as line diffs", async () => {
    const result = await cli(["diff", "a", "b"], folder);
    expect(result.stdout).toContain(
      "pitch (input, output):\n  with.prompt:\n    -One line pitch for a solar lantern.\n    +A warm one line pitch for a solar lantern.\n  output.text:\n    -",
    );
  });

  it("writes an HTML page with the two versions of a changed image side by side as data URIs", async () => {
    const diff = await diffJson("--html", "diff.html");
    const html = await readFile(path.join(folder, "diff.html"), "utf8");
    const poster = diff.steps.find((step) => step.key === "posters[1].poster")!;
    const change = poster.output.find((candidate) => candidate.type === "media");
    expect(change).toMatchObject({ type: "media", path: "output" });
    if (change?.type !== "media") throw new Error("no media change");
    const [before, after] = await Promise.all([
      readFile(path.join(folder, "a", change.a!.artifact)),
      readFile(path.join(folder, "b", change.b!.artifact)),
    ]);
    const pair = /<div class="side-by-side">(.*?)<\/div>/s.exec(html)?.[1] ?? "";
    const sources = [...pair.matchAll(/<img src="data:image\/png;base64,([^"]+)"/g)].map((match) => match[1]);
    expect(sources).toEqual([before.toString("base64"), after.toString("base64")]);
    // Self-contained: the page allows inline images and loads nothing else.
    expect(html).toContain("img-src 'self' data:");
    expect(html).not.toMatch(/<script|src="https?:/);
  });

  it("prints JSON with the runs, the counts and per step its status, what changed, costs and diffs", async () => {
    const diff = await diffJson();
    expect(Object.keys(diff)).toEqual(["a", "b", "workflowChanged", "inputs", "defaults", "steps", "counts"]);
    expect(diff).toMatchObject({
      a: { dir: path.join(folder, "a"), name: "kit", status: "done" },
      b: { dir: path.join(folder, "b"), name: "kit", status: "done" },
      workflowChanged: true,
      inputs: [expect.objectContaining({ path: "inputs.scenes[1]", type: "text", a: "dusk", b: "noon" })],
      defaults: [],
      counts: { changed: 2, added: 1, removed: 0, same: 2 },
    });
    expect(diff.steps.map((step) => [step.key, step.status])).toEqual([
      ["pitch", "changed"],
      ["posters[0].poster", "same"],
      ["posters[1].poster", "changed"],
      ["tagline", "same"],
      ["closing", "added"],
    ]);
    const pitch = diff.steps[0]!;
    expect(pitch).toMatchObject({
      kind: "chat",
      changes: ["input", "output"],
      a: { status: "done", calls: 1, unpricedCalls: 0 },
      b: { status: "done", calls: 1, unpricedCalls: 0 },
    });
    expect(pitch.a!.costYuan).toBeGreaterThan(0);
    expect(pitch.input).toEqual([
      expect.objectContaining({
        path: "with.prompt",
        type: "text",
        hunks: [
          expect.objectContaining({ lines: [expect.stringMatching(/^-One/), expect.stringMatching(/^\+A warm/)] }),
        ],
      }),
    ]);
    // A map item's prompt as sent: same file text, another scene.
    expect(diff.steps[2]!.input).toEqual([
      expect.objectContaining({
        path: "with.prompt",
        a: "Poster of a solar lantern at dusk",
        b: "Poster of a solar lantern at noon",
      }),
    ]);
    expect(diff.steps[4]).toMatchObject({ key: "closing", b: { status: "done" } });
    expect(diff.steps[4]).not.toHaveProperty("a");
  });

  it("marks what a rerun took from the first run as reused at ¥0, and names the changed step an input came from", async () => {
    const edited = SECOND.replace("A warm one line pitch", "A bold one line pitch");
    await runText(gateway.current, edited, {
      outDir: path.join(folder, "c"),
      inputs: { scenes: ["dawn", "noon"] },
      reuse: [path.join(folder, "b")],
    });
    const result = await cli(["diff", "b", "c"], folder);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(/^posters\[1\]\.poster\s+image\s+same\s+¥0\.4200\s+reused ¥0\.0000$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^tagline\s+chat\s+same\s+¥\d\.\d{4}\s+reused ¥0\.0000$/));
    // The closing step's file text did not change; the pitch it reads did.
    expect(lines).toContainEqual(expect.stringMatching(/^closing\s+chat\s+changed\s+input/));
    expect(result.stdout).toContain("closing (input, output):\n  reads: pitch, which changed\n");
  });

  it("reads a run directory another process holds without taking its lock", async () => {
    const lock = await RunDirLock.acquire(path.join(folder, "a"));
    try {
      const lockText = await readFile(lock.path, "utf8");
      const result = await cli(["diff", "a", "b", "--json"], folder);
      expect(result.code, result.stderr).toBe(0);
      expect(await readFile(lock.path, "utf8")).toBe(lockText);
    } finally {
      await lock.release();
    }
  });

  it("exits 2 naming the directory when one is not a run directory", async () => {
    const missing = await cli(["diff", "a", "nowhere"], folder);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/There is no run directory at .*nowhere.*\[invalid_run_dir\]/);
    const notARun = await cli(["diff", "a", "."], folder);
    expect(notARun.code).toBe(2);
    expect(notARun.stderr).toMatch(/There is no journal at .*journal\.jsonl.*\[invalid_run_dir\]/);
    const oneDir = await cli(["diff", "a"], folder);
    expect(oneDir.code).toBe(2);
  });
});
