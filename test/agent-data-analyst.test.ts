import { fakeModel } from "@langchain/core/testing";
import { AIMessage } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analysisSchema, dataAnalyst } from "../agents/index.js";
import { startAgentHarness, type AgentHarness } from "./agent-harness.js";

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness();
});
afterAll(async () => {
  await harness.close();
});

const FILES = {
  "sales.csv": "month,units\nJan,120\nFeb,95\nMar,143\n",
  "targets.json": JSON.stringify({ quarter: "Q1", units: 400 }),
};

describe("data-analyst against the local gateway", () => {
  const TASK = "What is the total of the units in sales.csv?";

  it("reads the data with its tools, billing each turn to its model", async () => {
    const run = await harness.run("data-analyst", TASK, { files: FILES });
    expect(run.outcome.toolCalls[0]).toMatchObject({ name: "read_file", arguments: { path: "sales.csv" } });
    expect(
      run.outcome.toolCalls.some((call) => call.name === "read_file" && call.result.startsWith("month,units")),
    ).toBe(true);
    expect(run.ledger.entries()).toHaveLength(run.outcome.steps);
    expect(
      run.ledger.entries().every((entry) => entry.modelRequested === dataAnalyst.model && entry.status === "ok"),
    ).toBe(true);
  });

  it("then answers in its structured shape", async () => {
    const run = await harness.run("data-analyst", TASK, { files: FILES });
    expect(run.outcome.status).toBe("answered");
    if (run.outcome.status !== "answered") return;
    expect(analysisSchema.safeParse(run.outcome.structuredResponse).success).toBe(true);
    expect(JSON.parse(run.outcome.answer)).toEqual(run.outcome.structuredResponse);
  });
});

describe("data-analyst's structured answer", () => {
  // A scripted model shows exactly what the agent does with each reply, independent of any simulation.
  function scripted(...replies: AIMessage[]) {
    let model = fakeModel();
    for (const reply of replies) model = model.respond(reply);
    return model;
  }

  it("offers the model its answer shape as the final_answer tool and returns the checked object", async () => {
    const final = {
      answer: "358 units were sold in Q1.",
      figures: [{ label: "Q1 units", value: 358 }],
      sources: ["sales.csv"],
    };
    const model = scripted(
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "read_file", args: { path: "sales.csv" } }] }),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "c2", name: "calculator", args: { expression: "120 + 95 + 143" } }],
      }),
      new AIMessage({ content: "", tool_calls: [{ id: "c3", name: "final_answer", args: final }] }),
    );
    const run = await harness.run("data-analyst", "How many units were sold in Q1?", {
      files: FILES,
      chatModel: () => model,
    });
    expect(run.outcome).toMatchObject({
      status: "answered",
      structuredResponse: final,
      answer: JSON.stringify(final),
      steps: 3,
    });
    expect(run.outcome.toolCalls.map((call) => [call.name, call.result])).toEqual([
      ["read_file", FILES["sales.csv"]],
      ["calculator", "358"],
    ]);
  });

  it("sends a final answer of the wrong shape back to the model, which then fixes it", async () => {
    const good = {
      answer: "Sales reached 358 of the 400-unit target.",
      figures: [{ label: "units", value: 358 }],
      sources: ["sales.csv", "targets.json"],
    };
    const model = scripted(
      new AIMessage({
        content: "",
        tool_calls: [{ id: "c1", name: "final_answer", args: { answer: "358", figures: "358" } }],
      }),
      new AIMessage({ content: "", tool_calls: [{ id: "c2", name: "final_answer", args: good }] }),
    );
    const run = await harness.run("data-analyst", "Did sales reach the target?", {
      files: FILES,
      chatModel: () => model,
    });
    expect(run.outcome).toMatchObject({ status: "answered", structuredResponse: good, steps: 2 });
  });
});
