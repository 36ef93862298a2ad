import { describe, expect, it } from "vitest";
import type { Message } from "../src/gateway/wire.js";
import type { SimulatedReply } from "../src/server/simulate/index.js";
import { checkValue, type JsonSchema } from "../src/server/simulate/json-schema-check.js";
import { chat, tool, user } from "./simulate-helpers.js";

const readFile = tool("read_file", "Read a text file from the workspace", {
  type: "object",
  properties: {
    path: { type: "string", description: "Path of the file" },
    offset: { type: "integer", minimum: 0, description: "Line to start reading from" },
    limit: { type: "integer", minimum: 1, description: "Most lines to return" },
  },
  required: ["path"],
});
const answerSchema = {
  type: "object",
  properties: {
    answer: { type: "string" },
    figures: {
      type: "array",
      items: {
        type: "object",
        properties: { label: { type: "string" }, value: { type: "number" } },
        required: ["label", "value"],
      },
    },
    sources: { type: "array", items: { type: "string" } },
  },
  required: ["answer", "figures", "sources"],
};
const finalAnswer = tool("final_answer", "Give the final answer of the analysis.", answerSchema);
const tools = [readFile, finalAnswer];
const args = (reply: SimulatedReply, index = 0) =>
  JSON.parse(reply.toolCalls[index]!.arguments) as Record<string, unknown>;

function withResult(messages: Message[], reply: SimulatedReply, result: string): Message[] {
  const calls = reply.toolCalls.map((call) => ({
    id: call.id,
    type: "function" as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  return [
    ...messages,
    { role: "assistant", content: null, tool_calls: calls },
    ...calls.map((call): Message => ({ role: "tool", tool_call_id: call.id, content: result })),
  ];
}

describe("structured-answer tools under tool_choice required", () => {
  const question = [user("What is the total of the units in sales.csv?")];

  it("does the work first, then answers with the answer tool filled from the results", async () => {
    const first = await chat("beta-4o", question, { tools, tool_choice: "required" });
    expect(first.toolCalls.map((call) => call.name)).toEqual(["read_file"]);
    const second = await chat("beta-4o", withResult(question, first, "month,units\nJan,120\nFeb,95\nMar,143\n"), {
      tools,
      tool_choice: "required",
    });
    expect(second.toolCalls.map((call) => call.name)).toEqual(["final_answer"]);
    const answer = args(second);
    expect(checkValue(answerSchema as JsonSchema, answer)).toBe(true);
    expect(answer.sources).toContain("sales.csv");
    expect((answer.figures as Array<{ value: number }>).every((figure) => [120, 95, 143].includes(figure.value))).toBe(
      true,
    );
  });

  it("calls a tool not called yet rather than repeating a call", async () => {
    const listFiles = tool("list_files", "List the files in the workspace", { type: "object", properties: {} });
    const first = await chat("beta-4o", question, { tools: [readFile, listFiles], tool_choice: "required" });
    expect(first.toolCalls.map((call) => call.name)).toEqual(["read_file"]);
    const second = await chat("beta-4o", withResult(question, first, "month,units\nJan,120\n"), {
      tools: [readFile, listFiles],
      tool_choice: "required",
    });
    expect(second.toolCalls.map((call) => call.name)).toEqual(["list_files"]);
  });

  it("answers in text under auto once the results are in", async () => {
    const question = [user("Read the file sales.csv and tell me the units.")];
    const first = await chat("beta-4o", question, { tools });
    expect(first.toolCalls.map((call) => call.name)).toEqual(["read_file"]);
    const second = await chat("beta-4o", withResult(question, first, "month,units\nJan,120\n"), { tools });
    expect(second.toolCalls).toEqual([]);
    expect(second.content).toContain("120");
  });
});

describe("optional tool arguments", () => {
  it("leaves optional arguments out when the prompt does not ask for them, numbers or not", async () => {
    const reply = await chat(
      "beta-4o",
      [user("Read facts.txt and tell me which of its 38 facts about 71 countries is oldest.")],
      { tools: [readFile] },
    );
    expect(args(reply)).toEqual({ path: "facts.txt" });
  });

  it("fills an optional argument the prompt names, with the value written beside it", async () => {
    const reply = await chat("beta-4o", [user("Read facts.txt with offset 40 and a limit of 10 lines.")], {
      tools: [readFile],
    });
    expect(args(reply)).toEqual({ path: "facts.txt", offset: 40, limit: 10 });
  });
});
