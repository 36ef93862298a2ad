// A chat step with no maxTokens anywhere gets a default output limit, so a budget can bound it.
import { describe, expect, it } from "vitest";
import { findModel } from "../src/catalog/models.js";
import { DEFAULT_OUTPUT_TOKENS, defaultOutputTokens } from "../src/workflow/kinds/default-output-tokens.js";
import { readJson, runText, useGateway } from "./workflow-harness.js";

const gateway = useGateway();
const SONNET_OUTPUT_YUAN_PER_1K = 0.1598;

async function estimateOf(text: string): Promise<{ status: string; estimates: number[] }> {
  const { result } = await runText(gateway.current, text);
  const cost = (await readJson(result.runDir, "cost.json")) as { calls: Array<{ estimateYuan: number }> };
  return { status: result.status, estimates: cost.calls.map((call) => call.estimateYuan) };
}

describe("default output limit of chat steps", () => {
  it("is 4096 tokens, or a model's catalogue minimum when that is higher", () => {
    expect(DEFAULT_OUTPUT_TOKENS).toBe(4096);
    expect(defaultOutputTokens("alpha-sonnet-4-6")).toBe(4096);
    const minimum = findModel("gamma-2.5-pro")!.rules.minOutputTokens!;
    expect(defaultOutputTokens("gamma-2.5-pro")).toBe(Math.max(4096, minimum));
  });

  it("lets a sonnet call without maxTokens run under a ¥1 budget, reserving about 4096 output tokens instead of the context window", async () => {
    const run = await estimateOf(`version: 1
budget: { maxYuan: 1 }
steps:
  - id: hello
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Say hello." }
`);
    expect(run.status).toBe("done");
    expect(run.estimates).toHaveLength(1);
    const outputPart = (DEFAULT_OUTPUT_TOKENS / 1000) * SONNET_OUTPUT_YUAN_PER_1K;
    expect(run.estimates[0]).toBeGreaterThanOrEqual(outputPart);
    expect(run.estimates[0]).toBeLessThan(outputPart + 0.01);
  });

  it("gives way to defaults.maxTokens and to a step's own maxTokens", async () => {
    const run = await estimateOf(`version: 1
budget: { maxYuan: 1 }
defaults: { model: alpha-sonnet-4-6, maxTokens: 100 }
steps:
  - id: short
    uses: chat
    with: { prompt: "Say hello." }
  - id: shorter
    needs: [short]
    uses: chat
    with: { prompt: "Say hello.", maxTokens: 10 }
`);
    expect(run.status).toBe("done");
    const [first, second] = run.estimates;
    expect(first).toBeGreaterThanOrEqual(0.1 * SONNET_OUTPUT_YUAN_PER_1K);
    expect(first).toBeLessThan(0.1 * SONNET_OUTPUT_YUAN_PER_1K + 0.01);
    expect(second).toBeLessThan(first! - 0.9 * 0.09 * SONNET_OUTPUT_YUAN_PER_1K);
  });
});
