import { describe, expect, it } from "vitest";
import type { Message } from "../src/gateway/wire.js";
import type { SimulatedReply } from "../src/server/simulate/index.js";
import { calculatorTool, chat, readFileTool, tool, user, weatherTool, writeFileTool } from "./simulate-helpers.js";

const tools = [weatherTool, calculatorTool, readFileTool, writeFileTool];
const args = (reply: SimulatedReply, index = 0) =>
  JSON.parse(reply.toolCalls[index]!.arguments) as Record<string, unknown>;

/** The conversation after the client ran the calls and sent back the given results. */
function withResults(messages: Message[], reply: SimulatedReply, results: string[]): Message[] {
  return [
    ...messages,
    {
      role: "assistant",
      content: null,
      tool_calls: reply.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
        ...call.extra,
      })),
    },
    ...reply.toolCalls.map(
      (call, index): Message => ({ role: "tool", tool_call_id: call.id, content: results[index]! }),
    ),
  ];
}

describe("simulated tool calling", () => {
  it("calls the tool that fits the prompt, with arguments taken from it", async () => {
    const reply = await chat("beta-4o", [user("What is 12 * 7?")], { tools });
    expect(reply.finishReason).toBe("tool_calls");
    expect(reply.content).toBe("");
    expect(reply.toolCalls.map((call) => call.name)).toEqual(["calculator"]);
    expect(args(reply)).toEqual({ expression: "12 * 7" });
    expect(reply.toolCalls[0]!.id).toMatch(/^call_\w{24}$/);
  });

  it("fills a path mentioned in the prompt and picks the tool by its name, not a sibling", async () => {
    const reply = await chat("alpha-sonnet-4-6", [user("Please read notes/todo.md and tell me what is left.")], {
      tools,
    });
    expect(reply.toolCalls.map((call) => call.name)).toEqual(["read_file"]);
    expect(args(reply)).toEqual({ path: "notes/todo.md" });
  });

  it("picks an enum value the prompt names", async () => {
    const reply = await chat("beta-4o", [user("How warm is it in Oslo right now, in fahrenheit?")], {
      tools: [weatherTool],
    });
    expect(args(reply)).toMatchObject({ city: "Oslo", unit: "fahrenheit" });
  });

  it("makes parallel calls when the prompt asks about several items", async () => {
    const reply = await chat("beta-4o", [user("What's the weather in Paris and Tokyo?")], { tools });
    expect(reply.toolCalls.map((call) => [call.name, args(reply, reply.toolCalls.indexOf(call)).city])).toEqual([
      ["get_weather", "Paris"],
      ["get_weather", "Tokyo"],
    ]);
    expect(new Set(reply.toolCalls.map((call) => call.id)).size).toBe(2);
  });

  it("calls different tools at once when the prompt asks for different things", async () => {
    const reply = await chat("beta-4o", [user("What's the weather in Lima, and what is 19 * 3?")], { tools });
    expect(reply.toolCalls.map((call) => call.name).sort()).toEqual(["calculator", "get_weather"]);
  });

  it("answers with the tool results, quoting their values, and does not call again", async () => {
    const messages = [user("What's the weather in Paris and Tokyo?")];
    const first = await chat("beta-4o", messages, { tools });
    const results = ['{"temperature": 21, "conditions": "sunny"}', '{"temperature": 14, "conditions": "light rain"}'];
    const answer = await chat("beta-4o", withResults(messages, first, results), { tools });
    expect(answer.toolCalls).toEqual([]);
    expect(answer.finishReason).toBe("stop");
    for (const value of ["21", "sunny", "14", "light rain", "Paris", "Tokyo"]) expect(answer.content).toContain(value);
  });

  it("states a calculator's result as the answer to the expression", async () => {
    const messages = [user("What is 12 * 7?")];
    const first = await chat("beta-4o", messages, { tools });
    const answer = await chat("beta-4o", withResults(messages, first, ["84"]), { tools });
    expect(answer.content).toContain("12 * 7 = 84");
  });

  it("calls one tool at a time when parallel_tool_calls is false, then the next after the result", async () => {
    const messages = [user("What's the weather in Paris and Tokyo?")];
    const first = await chat("beta-4o", messages, { tools, parallel_tool_calls: false });
    expect(first.toolCalls.map((call) => JSON.parse(call.arguments).city)).toEqual(["Paris"]);
    const second = await chat("beta-4o", withResults(messages, first, ["18C"]), { tools, parallel_tool_calls: false });
    expect(second.toolCalls.map((call) => JSON.parse(call.arguments).city)).toEqual(["Tokyo"]);
    const history = withResults(withResults(messages, first, ["18C"]), second, ["25C"]);
    const done = await chat("beta-4o", history, { tools, parallel_tool_calls: false });
    expect(done.toolCalls).toEqual([]);
    expect(done.content).toContain("18C");
    expect(done.content).toContain("25C");
  });

  it("never calls a tool under tool_choice none", async () => {
    const reply = await chat("beta-4o", [user("What is 12 * 7?")], { tools, tool_choice: "none" });
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toContain("84");
  });

  it("answers in text under auto when no tool fits", async () => {
    const reply = await chat("beta-4o", [user("Write a haiku about autumn leaves.")], {
      tools: [weatherTool, calculatorTool],
    });
    expect(reply.toolCalls).toEqual([]);
    expect(reply.finishReason).toBe("stop");
  });

  it("calls the best tool under required even when none fits", async () => {
    const reply = await chat("beta-4o", [user("Write a haiku about autumn leaves.")], {
      tools: [weatherTool],
      tool_choice: "required",
    });
    expect(reply.toolCalls.map((call) => call.name)).toEqual(["get_weather"]);
    expect(typeof args(reply).city).toBe("string");
  });

  it("always calls the named function, even one the prompt does not fit", async () => {
    const reply = await chat("beta-4o", [user("What is 12 * 7?")], {
      tools,
      tool_choice: { type: "function", function: { name: "write_file" } },
    });
    expect(reply.toolCalls.map((call) => call.name)).toEqual(["write_file"]);
    expect(Object.keys(args(reply)).sort()).toEqual(["content", "path"]);
  });

  it("stops calling under auto after a bounded number of rounds", async () => {
    let messages: Message[] = [user("What's the weather in Paris?")];
    let reply = await chat("beta-4o", messages, {
      tools,
      tool_choice: { type: "function", function: { name: "calculator" } },
    });
    for (let round = 0; round < 5 && reply.toolCalls.length > 0; round++) {
      messages = withResults(messages, reply, ["no data"]);
      reply = await chat("beta-4o", messages, { tools });
    }
    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toContain("no data");
  });

  it("signs gamma tool calls with a thought_signature and leaves others unsigned", async () => {
    const gamma = await chat("gamma-2.5-flash", [user("What is 6 * 7?")], { tools });
    const beta = await chat("beta-4o", [user("What is 6 * 7?")], { tools });
    expect(gamma.toolCalls[0]!.extra?.thought_signature).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
    expect(beta.toolCalls[0]!.extra).toBeUndefined();
  });

  it("counts the calls' names and arguments as completion tokens", async () => {
    const reply = await chat("beta-4o", [user("What is 12 * 7?")], { tools });
    expect(reply.completionTokens).toBeGreaterThan(3);
    expect(reply.reasoningTokens).toBe(0);
  });

  it("fills nested and array parameters validly from the prompt", async () => {
    const emailTool = tool("send_email", "Send an email message", {
      type: "object",
      properties: {
        to: { type: "string", format: "email" },
        subject: { type: "string", maxLength: 40 },
        body: { type: "string" },
        options: { type: "object", properties: { priority: { enum: ["low", "high"] } }, required: ["priority"] },
        cc: { type: "array", items: { type: "string", format: "email" }, maxItems: 2 },
      },
      required: ["to", "subject", "body", "options"],
      additionalProperties: false,
    });
    const reply = await chat(
      "beta-4o",
      [user('Send an email to ada@example.org saying "the build is green", high priority.')],
      { tools: [emailTool] },
    );
    const value = args(reply);
    expect(value).toMatchObject({ to: "ada@example.org", body: "the build is green", options: { priority: "high" } });
    expect((value.subject as string).length).toBeLessThanOrEqual(40);
  });
});
