import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PUBLISHED_PRICES, roundYuan, tokenCost } from "../src/catalog/prices.js";
import { countPromptTokens } from "../src/gateway/prompt-tokens.js";
import { estimateWorkflow, type WorkflowEstimate } from "../src/cli/estimate/estimate-workflow.js";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { gatewayEnv, runCli } from "./cli-harness.js";

let dir: string;
let gateway: LocalGateway | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-cli-estimate-"));
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await rm(dir, { recursive: true, force: true });
});

const PRICED = `version: 1
name: kit
inputs:
  product: { type: string, default: "a solar lantern" }
steps:
  - id: pitch
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line pitch for \${{ inputs.product }}.", maxTokens: 120 }
  - id: posters
    map: ["dawn", "noon", "dusk"]
    as: scene
    steps:
      - id: poster
        uses: image
        with: { prompt: "Poster of \${{ inputs.product }} at \${{ scene }}" }
  - id: review
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Improve this pitch: \${{ steps.pitch.output.text }}", maxTokens: 80 }
  - id: jingle
    uses: music
    with: { prompt: "Jingle for \${{ inputs.product }}", instrumental: true }
`;

async function estimate(text: string, ...argv: string[]) {
  await writeFile(join(dir, "flow.yaml"), text);
  return runCli(["estimate", "flow.yaml", ...argv], { env: {}, cwd: dir });
}

async function estimateJson(text: string, ...argv: string[]): Promise<WorkflowEstimate> {
  const result = await estimate(text, ...argv, "--json");
  expect(result.code, result.stderr.text).toBe(0);
  return JSON.parse(result.stdout.text) as WorkflowEstimate;
}

describe("svc-flow estimate", () => {
  it("prints a table per step with the map's item count and a hard total, without starting a gateway", async () => {
    const result = await estimate(PRICED);
    expect(result.code).toBe(0);
    expect(result.stderr.text).toBe("");
    const lines = result.stdout.text.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^STEP\s+KIND\s+MODELS\s+CALLS\s+MAX YUAN\s+UNPRICED$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^posters\.poster\s+image\s+gamma-2\.5-flash-image\s+3 x 1\s+¥1\.2600$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^jingle\s+music\s+music:generate\s+1\s+¥2\.0000$/));
    expect(lines).toContainEqual(expect.stringMatching(/^total: at most ¥\d+\.\d{4} over 6 calls$/));
    expect(result.stdout.text).toMatch(/posters: 3 items \(the list in the file\), ¥0\.4200 per item/);
  });

  it("bounds what the run then really costs", async () => {
    const bound = await estimateJson(PRICED);
    expect(bound.upperBound).toBe(true);
    expect(bound.maxYuan).toBeCloseTo(
      bound.steps.reduce((sum, step) => sum + (step.maxYuan ?? 0), 0),
      8,
    );

    gateway = await startLocalGateway({
      port: 0,
      config: { keys: [{ key: "sk-cli-estimate-run" }], music: { completeAfterMs: 50 } },
    });
    const run = await runCli(["run", "flow.yaml", "--out", "run"], {
      env: gatewayEnv(gateway.baseURL, "sk-cli-estimate-run"),
      cwd: dir,
    });
    expect(run.code, run.stderr.text).toBe(0);
    const cost = JSON.parse(await readFile(join(dir, "run", "cost.json"), "utf8")) as { totalYuan: number };
    expect(cost.totalYuan).toBeGreaterThan(3.26);
    expect(cost.totalYuan).toBeLessThanOrEqual(bound.maxYuan);
  }, 60_000);

  it("counts a referenced step's output at that step's limit", async () => {
    const bound = await estimateJson(PRICED);
    const review = bound.steps.find((step) => step.step === "review")!;
    expect(review.notes).toContainEqual(
      expect.stringMatching(/^\$\{\{ steps\.pitch\.output\.text \}\} counted at up to 120 prompt tokens/),
    );
  });

  it("gives a per-item figure for a map whose length only the run knows, and says the total is not a bound", async () => {
    const text = `version: 1
steps:
  - id: ideas
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "List ideas as JSON", schema: { type: array, items: { type: string } }, maxTokens: 100 }
  - id: each
    map: \${{ steps.ideas.output }}
    steps:
      - id: draw
        uses: image
        with: { prompt: "Draw \${{ item }}" }
`;
    const result = await estimate(text);
    expect(result.code).toBe(0);
    expect(result.stdout.text).toMatch(/^each\.draw\s+image\s+gamma-2\.5-flash-image\s+\? x 1\s+¥0\.4200\/item$/m);
    expect(result.stdout.text).toMatch(
      /\+ each: ¥0\.4200 per item, for a number of items known only when it runs \(steps\.ideas\.output/,
    );
    expect(result.stdout.text).toMatch(
      /^total: ¥\d+\.\d{4} over 1 call, not a hard bound: maps of unknown length are not in it$/m,
    );
    const bound = await estimateJson(text);
    expect(bound.complete).toBe(false);
    expect(bound.maps[0]).toMatchObject({ step: "each", yuanPerItem: 0.42 });
    expect(bound.maps[0]!.count).toBeUndefined();
  });

  it("takes the count from a schema's maxItems as a most", async () => {
    const text = `version: 1
steps:
  - id: ideas
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Three taglines", schema: { type: array, items: { type: string }, maxItems: 3 }, maxTokens: 100 }
  - id: posters
    map: \${{ steps.ideas.output }}
    as: tagline
    steps:
      - id: poster
        uses: image
        with: { prompt: "Poster: \${{ tagline }}" }
`;
    const bound = await estimateJson(text);
    expect(bound.maps[0]).toMatchObject({ count: 3, exact: false });
    expect(bound.steps.find((step) => step.step === "posters.poster")).toMatchObject({ times: 3, maxYuan: 1.26 });
    expect(bound.complete).toBe(true);
  });

  it("takes the count from an input's default, or from --input", async () => {
    const text = `version: 1
inputs:
  scenes: { type: array, default: ["a", "b", "c", "d"] }
steps:
  - id: shots
    map: \${{ inputs.scenes }}
    steps:
      - id: shot
        uses: image
        with: { prompt: "Shot of \${{ item }}" }
`;
    expect((await estimateJson(text)).steps[0]).toMatchObject({ times: 4, maxYuan: 1.68 });
    expect((await estimateJson(text, "--input", 'scenes=["x","y"]')).steps[0]).toMatchObject({
      times: 2,
      maxYuan: 0.84,
    });
  });

  it("lists unpriced models with their token bounds, never as ¥0", async () => {
    const text = `version: 1
steps:
  - id: ask
    uses: chat
    with: { model: beta-4o, prompt: "Hello", maxTokens: 50 }
`;
    const result = await estimate(text);
    expect(result.code).toBe(0);
    expect(result.stdout.text).toMatch(/^ask\s+chat\s+beta-4o\s+1\s+unpriced\s+beta-4o$/m);
    expect(result.stdout.text).toMatch(/^total: at most ¥0\.0000 \+ unpriced calls over 1 call$/m);
    expect(result.stdout.text).toMatch(
      /^unpriced: beta-4o \(1 call, up to \d+ prompt \+ 50 output tokens\)\. Give their prices with --prices FILE/m,
    );
    await writeFile(join(dir, "prices.yaml"), "chat:\n  beta-4o: { input: 0.01, output: 0.02 }\n");
    const priced = await estimateJson(text, "--prices", "prices.yaml");
    expect(priced.unpriced).toEqual([]);
    expect(priced.maxYuan).toBeGreaterThanOrEqual(0.001);
  });

  it("names the price file in its header when prices come from one", async () => {
    await writeFile(join(dir, "prices.yaml"), "chat:\n  beta-4o: { input: 0.01, output: 0.02 }\n");
    const published = await estimate(PRICED);
    expect(published.stdout.text.split("\n")[0]).toMatch(/\(published prices\)\.$/);
    const result = await estimate(PRICED, "--prices", "prices.yaml");
    expect(result.code, result.stderr.text).toBe(0);
    expect(result.stdout.text.split("\n")[0]).toMatch(/\(prices from prices\.yaml over the published ones\)\.$/);
    expect((await estimateJson(PRICED, "--prices", "prices.yaml")).prices).toEqual({
      source: "file",
      file: "prices.yaml",
    });
  });

  it("counts a step whose if: is false for the given inputs as skipped", async () => {
    const text = `version: 1
inputs:
  photo: { type: string, optional: true }
steps:
  - id: look
    if: \${{ inputs.photo }}
    uses: image
    with: { prompt: "Redraw the photo" }
`;
    expect((await estimateJson(text)).steps[0]).toMatchObject({ times: 0, maxYuan: 0 });
    expect((await estimateJson(text, "--input", "photo=cat.png")).steps[0]).toMatchObject({ times: 1, maxYuan: 0.42 });
  });

  it("says when a chat step has no output limit that the bound rests on the context window", async () => {
    const text = `version: 1
steps:
  - id: essay
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Write an essay" }
`;
    const result = await estimate(text);
    expect(result.stdout.text).toMatch(
      /essay: no output limit in the request: reserved the \d+ tokens left in alpha-sonnet-4-6's context window/,
    );
  });

  it.each([
    [["estimate"], /Name the workflow file to estimate/],
    [["estimate", "missing.yaml"], /Cannot read the workflow missing\.yaml: there is no such file/],
    [["estimate", "flow.yaml", "--input", "nope=1"], /Unknown input "nope"/],
    [["estimate", "flow.yaml", "--input", "novalue"], /Expected --input NAME=VALUE/],
  ])("exits 2 for %j", async (argv, message) => {
    await writeFile(join(dir, "flow.yaml"), PRICED);
    const result = await runCli(argv, { env: {}, cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(message);
  });

  it("reports an invalid workflow with file, line and path (exit 2)", async () => {
    const result = await estimate(
      "version: 1\nsteps:\n  - id: a\n    uses: chat\n    with: { model: alpha-sonet, prompt: hi }\n",
    );
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/flow\.yaml:5/);
    expect(result.stderr.text).toMatch(/alpha-sonnet-4-6/);
  });

  it("prices a prompt built from any given input exactly as the gateway will count it", async () => {
    const workflow = parseWorkflow(
      'version: 1\ninputs:\n  topic: { type: string }\nsteps:\n  - id: pitch\n    uses: chat\n    with: { model: alpha-sonnet-4-6, prompt: "Pitch: ${{ inputs.topic }}", maxTokens: 64 }\n',
    );
    const price = PUBLISHED_PRICES.chat["alpha-sonnet-4-6"]!;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 200 }), async (topic) => {
        const bound = await estimateWorkflow(workflow, { inputs: { topic } });
        const promptTokens = countPromptTokens({ messages: [{ role: "user", content: `Pitch: ${topic}` }] });
        expect(bound.maxYuan).toBe(roundYuan(tokenCost(promptTokens, price.input) + tokenCost(64, price.output)));
        expect(bound.upperBound).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

describe("estimating MCP tools", () => {
  it("counts an MCP tool step and an agent's MCP tools at ¥0, and says so in the notes", async () => {
    const workflow = parseWorkflow(
      `version: 1
mcp:
  shop: { command: node, args: ["shop.mjs"] }
defaults: { model: alpha-sonnet-4-6 }
steps:
  - id: price
    uses: tool
    with: { tool: shop/price, input: { product: lantern } }
  - id: helper
    uses: agent
    with: { tools: [shop/*, calculator], prompt: "Price a lantern." }
`,
      { fileName: "mcp.yaml" },
    );

    const estimate = await estimateWorkflow(workflow);

    const price = estimate.steps.find((step) => step.step === "price");
    expect(price).toMatchObject({ maxYuan: 0, upperBound: true });
    expect(price?.notes).toEqual([
      "MCP tool shop/price counted at ¥0: it calls no model through svc-flow, and what the server spends on its own is not known here",
    ]);
    expect(estimate.steps.find((step) => step.step === "helper")?.notes).toContain(
      "MCP tool shop/* counted at ¥0: it calls no model through svc-flow, and what the server spends on its own is not known here",
    );
  });
});
