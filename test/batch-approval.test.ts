// Approval steps in batch rows: each row waits for its own decision (`svc-flow approve --item N`),
// the run ends waiting (exit 3) until every row is answered, and rows already done are not run again.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();
const FLOW = `version: 1
name: signs
inputs:
  product: { type: items, default: products.jsonl }
defaults: { model: alpha-sonnet-4-6, maxTokens: 32 }
steps:
  - id: line
    uses: chat
    with: { prompt: "One line for \${{ inputs.product.title }}" }
  - id: check
    uses: approval
    with: { prompt: "Print the sign for \${{ inputs.product.title }}?", show: "\${{ steps.line.output.text }}" }
outputs:
  title: \${{ inputs.product.title }}
  note: \${{ steps.check.output.note }}
`;

async function rows(runDir: string): Promise<Array<{ index: number; state: string; output?: { note: string } }>> {
  const text = await readFile(path.join(runDir, "outputs.jsonl"), "utf8").catch(() => "");
  return text
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { index: number; state: string; output?: { note: string } })
    .sort((a, b) => a.index - b.index);
}

describe("approval steps in batch rows", () => {
  it("waits once per row, answered with --item N, and finishes when every row is answered", async () => {
    const folder = await tempDir("svc-flow-batch-approval-");
    await writeFile(path.join(folder, "flow.yaml"), FLOW);
    await writeFile(path.join(folder, "products.jsonl"), '{"title":"Lamp"}\n{"title":"Kettle"}\n');
    const env = { ...gatewayEnv(gateway.current.baseURL, "sk-local-demo"), SVC_FLOW_USER: "ana" };
    const cli = (argv: string[]) => runCli(argv, { env, cwd: folder });
    const runDir = path.join(folder, "run");

    const first = await cli(["run", "flow.yaml", "--out", "run"]);
    expect(first.code).toBe(3);
    expect(first.stdout.text).toContain("items[0].check: Print the sign for Lamp?");
    expect(first.stdout.text).toContain("svc-flow approve run check --item 1");
    expect(await rows(runDir)).toEqual([]);

    const one = await cli(["approve", "run", "check", "--item", "1", "--note", "kettle ok"]);
    expect(one.code).toBe(3);
    expect(await rows(runDir)).toMatchObject([{ index: 1, state: "done", output: { note: "kettle ok" } }]);
    const billed = gateway.current.stats().keys[0]!.billed.length;

    const other = await cli(["approve", "run", "check", "--item", "0", "--note", "lamp ok"]);
    expect(other.code).toBe(0);
    expect(await rows(runDir)).toMatchObject([
      { index: 0, state: "done", output: { note: "lamp ok" } },
      { index: 1, state: "done", output: { note: "kettle ok" } },
    ]);
    // Each row's chat line was journaled before it waited: answering sends no call again.
    expect(gateway.current.stats().keys[0]!.billed.length).toBe(billed);
  });
});
