import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJournal, resumeWorkflow, type WorkflowEvent } from "../src/workflow/index.js";
import { billed, gatewayOptions, recordsOf, runText, useGateway } from "./workflow-harness.js";

const gateway = useGateway({ faults: { seed: 1, latencyMs: 60, models: {} } });

// "1 /" is not an expression, so its item fails (a non-retryable tool error) while the others work.
function mapWorkflow(mode: string, extra = ""): string {
  return `version: 1
steps:
  - id: sums
    map: ["1 + 1", "1 /", "2 * 3"]
    as: expression
    onItemError: ${mode}${extra}
    steps:
      - id: sum
        uses: tool
        with: { tool: calculator, input: { expression: "\${{ expression }}" } }
`;
}

describe("map steps", () => {
  it("with onItemError fail, fails the map and the run on the first bad item", async () => {
    const { result, journal } = await runText(gateway.current, mapWorkflow("fail", "\n    concurrency: 1"));
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("invalid_expression");
    expect(result.error?.message).toMatch(/svc-flow resume/);
    // The item before the failure is journaled; the one after never started.
    expect(recordsOf(journal, "item-finished").map((record) => record.index)).toEqual([0]);
    expect(recordsOf(journal, "step-failed").map((record) => record.key)).toEqual(["sums[1].sum", "sums"]);
  });

  it("with onItemError skip, leaves failed items out of the output", async () => {
    const { result } = await runText(gateway.current, mapWorkflow("skip"));
    expect(result.status).toBe("done");
    expect(result.outputs?.sums).toEqual(["2", "6"]);
  });

  it("with onItemError collect, keeps an { error } entry in place of each failed item", async () => {
    const { result, events } = await runText(gateway.current, mapWorkflow("collect"));
    expect(result.outputs?.sums).toEqual([
      "2",
      { error: { code: "invalid_expression", message: expect.stringContaining("1 /") } },
      "6",
    ]);
    const last = events
      .filter((event): event is Extract<WorkflowEvent, { type: "map-progress" }> => event.type === "map-progress")
      .at(-1);
    expect(last).toMatchObject({ done: 2, failed: 1, total: 3 });
  });

  it("fails only the items whose rendered fields do not fit, and sends every item the fields written as they are", async () => {
    const { result } = await runText(
      gateway.current,
      `version: 1
steps:
  - id: lines
    map: [0.5, 7, 0.2]
    as: warmth
    onItemError: collect
    steps:
      - id: line
        uses: chat
        with: { model: beta-4o-mini, prompt: "Write a long story about a lantern", maxTokens: 5, temperature: "\${{ warmth }}" }
`,
    );
    const outputs = result.outputs?.lines as Array<{ text?: string; error?: { code: string; message: string } }>;
    expect(outputs[1]?.error?.code).toBe("invalid_step_input");
    expect(outputs[1]?.error?.message).toContain('Step "lines[1].line"');
    expect(outputs[1]?.error?.message).toContain("with.temperature");
    expect(typeof outputs[0]?.text).toBe("string");
    expect(typeof outputs[2]?.text).toBe("string");
    const calls = billed(gateway.current);
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.completionTokens).toBeLessThanOrEqual(5);
  });

  it("finishes a map whose items all finished when a step beside it fails, and resume does not redo it", async () => {
    const { result, journal } = await runText(
      gateway.current,
      `version: 1
defaults: { model: beta-4o-mini, maxTokens: 20 }
steps:
  - id: lines
    map: [1, 2, 3]
    steps:
      - id: say
        uses: chat
        with: { prompt: "Say \${{ item }}" }
  - id: broken
    uses: tool
    with: { tool: calculator, input: { expression: "1 /" } }
`,
    );
    expect(result).toMatchObject({ status: "failed", error: { code: "invalid_expression" } });
    // Only the tool failed; the map's three items finished while it failed, so the map did too.
    expect(recordsOf(journal, "step-failed").map((record) => record.key)).toEqual(["broken"]);
    expect(
      recordsOf(journal, "item-finished")
        .map((record) => [record.index, record.error])
        .sort(),
    ).toEqual([
      [0, undefined],
      [1, undefined],
      [2, undefined],
    ]);
    expect(recordsOf(journal, "step-finished").map((record) => record.key)).toContain("lines");
    const calls = billed(gateway.current).length;
    const resumed = await resumeWorkflow(result.runDir, gatewayOptions(gateway.current));
    expect(resumed).toMatchObject({ status: "failed", error: { code: "invalid_expression" } });
    expect(billed(gateway.current).length).toBe(calls);
  });

  it("leaves items a failing sibling step cut off unfinished, not failed, so resume runs them", async () => {
    const { result, journal, events } = await runText(
      gateway.current,
      `version: 1
defaults: { model: beta-4o-mini, maxTokens: 20 }
steps:
  - id: lines
    map: [1, 2, 3, 4]
    concurrency: 2
    onItemError: collect
    steps:
      - id: say
        uses: chat
        with: { prompt: "Say \${{ item }}" }
  - id: broken
    uses: tool
    with: { tool: calculator, input: { expression: "1 /" } }
`,
    );
    expect(result).toMatchObject({ status: "failed", error: { code: "invalid_expression" } });
    // The two items in flight finished and are journaled; the two waiting never started and are not
    // journaled at all (collect would otherwise have kept "did not start" as their error).
    expect(
      recordsOf(journal, "item-finished")
        .map((record) => [record.index, record.error])
        .sort(),
    ).toEqual([
      [0, undefined],
      [1, undefined],
    ]);
    expect(recordsOf(journal, "step-failed").map((record) => record.key)).toEqual(["broken"]);
    expect(recordsOf(journal, "step-finished").map((record) => record.key)).not.toContain("lines");
    expect(events.some((event) => event.type === "step-failed" && event.key === "lines")).toBe(false);
    // Resume runs (and pays for) only the two that never started; this time both are in flight when
    // the tool fails again, so the map finishes.
    const calls = billed(gateway.current).length;
    const resumed = await resumeWorkflow(result.runDir, gatewayOptions(gateway.current));
    expect(resumed).toMatchObject({ status: "failed", error: { code: "invalid_expression" } });
    expect(billed(gateway.current).length - calls).toBe(2);
    const { records } = await readJournal(path.join(result.runDir, "journal.jsonl"));
    expect(
      recordsOf(records, "item-finished")
        .map((record) => record.index)
        .sort(),
    ).toEqual([0, 1, 2, 3]);
    expect(recordsOf(records, "step-finished").map((record) => record.key)).toContain("lines");
  });

  it("maps over the output of an earlier step, with a named output per item", async () => {
    const { result } = await runText(
      gateway.current,
      `version: 1
defaults: { model: alpha-sonnet-4-6, maxTokens: 200 }
steps:
  - id: ideas
    uses: chat
    with: { prompt: "Three taglines", schema: { type: array, items: { type: string }, minItems: 3, maxItems: 3 } }
  - id: lengths
    map: \${{ steps.ideas.output }}
    as: tagline
    output: \${{ [tagline, steps.count.output] }}
    steps:
      - id: count
        uses: tool
        with: { tool: calculator, input: { expression: "\${{ length(tagline) }} + 0" } }
`,
    );
    const ideas = result.outputs?.ideas as string[];
    expect(result.outputs?.lengths).toEqual(ideas.map((idea) => [idea, String(idea.length)]));
  });

  it("keeps at most `concurrency` items in flight", async () => {
    const { result, events } = await runText(
      gateway.current,
      `version: 1
defaults: { model: beta-4o-mini, maxTokens: 50 }
steps:
  - id: many
    map: [1, 2, 3, 4, 5, 6]
    concurrency: 2
    steps:
      - id: say
        uses: chat
        with: { prompt: "Say \${{ item }}" }
`,
    );
    expect(result.status).toBe("done");
    // A call is in flight from its step's start to its bill (the cost event), when its slot is given back.
    let inFlight = 0;
    let most = 0;
    for (const event of events) {
      if (event.type === "step-started" && event.id === "say") most = Math.max(most, ++inFlight);
      if (event.type === "cost") inFlight--;
    }
    expect(most).toBe(2);
  });

  it("starts independent steps at once, under the run's limit", async () => {
    const steps = [1, 2, 3]
      .map(
        (n) => `  - id: s${n}\n    uses: chat\n    with: { model: beta-4o-mini, prompt: "Say ${n}", maxTokens: 20 }\n`,
      )
      .join("");
    const { events } = await runText(gateway.current, `version: 1\nconcurrency: 2\nsteps:\n${steps}`);
    // The third starts only once a call has returned (its bill, the cost event, frees the slot).
    const order = events
      .filter((event) => event.type === "step-started" || event.type === "cost")
      .map((event) => event.type);
    expect(order.slice(0, 3)).toEqual(["step-started", "step-started", "cost"]);
  });

  it("gives a step's slot to the next step when its call returns, before its record is on disk", async () => {
    const steps = [1, 2]
      .map(
        (n) => `  - id: s${n}\n    uses: chat\n    with: { model: beta-4o-mini, prompt: "Say ${n}", maxTokens: 20 }\n`,
      )
      .join("");
    const { result, events } = await runText(gateway.current, `version: 1\nconcurrency: 1\nsteps:\n${steps}`);
    expect(result.status).toBe("done");
    const order = events
      .filter((event) => event.type === "step-started" || event.type === "step-finished")
      .map((event) => event.type);
    // The first is announced finished only once its record is durable; by then the second holds the slot.
    expect(order).toEqual(["step-started", "step-started", "step-finished", "step-finished"]);
  });

  it("fails a step that outlives its timeout, naming the step", async () => {
    const { result } = await runText(
      gateway.current,
      `version: 1\nsteps:\n  - id: slow\n    uses: chat\n    timeout: 10ms\n    with: { model: beta-4o-mini, prompt: "Hello", maxTokens: 20 }\n`,
    );
    expect(result).toMatchObject({ status: "failed", error: { code: "timeout" } });
    expect(result.error?.message).toMatch(/Step "slow" did not finish within 0\.01s/);
  });
});
