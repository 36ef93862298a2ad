// A workflow run as LangChain tracers see it: one tree, run > step (> map item > step) > call, with
// step names, map item indexes and the ls_* metadata LangSmith prices calls by. The tracer is a real
// BaseTracer subclass collecting the runs it is given, against a real local gateway.
import path from "node:path";
import { BaseTracer, type Run } from "@langchain/core/tracers/base";
import { describe, expect, it } from "vitest";
import { runWorkflow } from "../src/cli/compose-run.js";
import { parseWorkflow } from "../src/workflow/index.js";
import { gatewayOptions, tempDir, useGateway } from "./workflow-harness.js";

/** Keeps every finished root run (with its child runs inside), as a tracer that sends them would. */
class CollectingTracer extends BaseTracer {
  name = "collecting_tracer";
  readonly roots: Run[] = [];
  protected async persistRun(run: Run): Promise<void> {
    this.roots.push(run);
  }
}

const gateway = useGateway();

async function traceRun(text: string): Promise<{ roots: Run[]; status: string }> {
  const tracer = new CollectingTracer();
  const workflow = parseWorkflow(text, { fileName: "traced.yaml" });
  const outDir = path.join(await tempDir(), "run");
  const result = await runWorkflow(workflow, { ...gatewayOptions(gateway.current, { outDir }), callbacks: [tracer] });
  return { roots: tracer.roots, status: result.status };
}

function names(runs: readonly Run[]): string[] {
  return runs.map((run) => run.name);
}

function descendants(run: Run): Run[] {
  return run.child_runs.flatMap((child) => [child, ...descendants(child)]);
}

describe("a traced workflow run", () => {
  it("gives one root run with a named child run per step, each holding its call's LLM run", async () => {
    const { roots, status } = await traceRun(
      `version: 1\nname: two-steps\ndefaults: { model: beta-4o-mini, maxTokens: 64 }\nsteps:\n` +
        `  - id: outline\n    uses: chat\n    with: { prompt: "Outline a note on lanterns." }\n` +
        `  - id: draft\n    uses: chat\n    with: { prompt: "Write it: \${{ steps.outline.output.text }}" }\n`,
    );
    expect(status).toBe("done");
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root).toMatchObject({ name: "two-steps", run_type: "chain", parent_run_id: undefined });
    expect(names(root.child_runs)).toEqual(["outline", "draft"]);
    for (const step of root.child_runs) {
      expect(step.run_type).toBe("chain");
      expect(step.child_runs).toHaveLength(1);
      const call = step.child_runs[0]!;
      expect(call.run_type).toBe("llm");
      expect(call.extra?.metadata).toMatchObject({
        ls_provider: "svc-gateway",
        ls_model_name: "beta-4o-mini",
        ls_model_type: "chat",
        ls_max_tokens: 64,
      });
      expect(call.outputs?.llmOutput?.tokenUsage?.totalTokens).toBeGreaterThan(0);
      expect(call.error).toBeUndefined();
    }
    expect(root.child_runs[1]!.child_runs[0]!.inputs.messages[0][0].content).toContain("Write it:");
  });

  it("nests a map's items, named by index, under the map's run, each with its steps and calls", async () => {
    const { roots } = await traceRun(
      `version: 1\nname: mapped\ndefaults: { model: beta-4o-mini, maxTokens: 32 }\nsteps:\n` +
        `  - id: posters\n    map: [lantern, lamp]\n    as: thing\n    steps:\n` +
        `      - id: line\n        uses: chat\n        with: { prompt: "A tagline for a \${{ thing }}." }\n`,
    );
    expect(roots).toHaveLength(1);
    const map = roots[0]!.child_runs[0]!;
    expect(map.name).toBe("posters");
    const items = [...map.child_runs].sort((a, b) => a.name.localeCompare(b.name));
    expect(names(items)).toEqual(["posters[0]", "posters[1]"]);
    expect(items.map((item) => item.extra?.metadata?.index)).toEqual([0, 1]);
    expect(items.map((item) => item.inputs)).toEqual([{ thing: "lantern" }, { thing: "lamp" }]);
    for (const item of items) {
      expect(names(item.child_runs)).toEqual([`${item.name}.line`]);
      expect(item.child_runs[0]!.child_runs.map((call) => call.run_type)).toEqual(["llm"]);
    }
  });

  it("nests an agent step's LangChain runs (model turns and tool calls) under the step's run", async () => {
    const { roots } = await traceRun(
      `version: 1\nname: agentic\ndefaults: { model: alpha-sonnet-4-6, maxTokens: 300 }\nsteps:\n` +
        `  - id: review\n    uses: agent\n    with: { tools: [calculator], prompt: "Price a bundle: what is 19.99 * 3?" }\n`,
    );
    expect(roots).toHaveLength(1);
    const step = roots[0]!.child_runs[0]!;
    expect(step.name).toBe("review");
    const inside = descendants(step);
    const calls = inside.filter((run) => run.run_type === "llm");
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((call) => call.extra?.metadata?.ls_model_name === "alpha-sonnet-4-6")).toBe(true);
    expect(inside.some((run) => run.run_type === "tool" && run.name === "calculator")).toBe(true);
  });

  it("marks the step that failed, and the run, with the error", async () => {
    const { roots, status } = await traceRun(
      `version: 1\nname: failing\nsteps:\n` +
        `  - id: broken\n    uses: tool\n    with: { tool: calculator, input: { expression: "2 +* 3" } }\n`,
    );
    expect(status).toBe("failed");
    expect(roots).toHaveLength(1);
    expect(roots[0]!.error).toBeDefined();
    expect(roots[0]!.child_runs[0]).toMatchObject({ name: "broken" });
    expect(roots[0]!.child_runs[0]!.error).toBeDefined();
  });
});
