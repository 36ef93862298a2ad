import { type AIMessageChunk, HumanMessage, ToolMessage, type AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useGateway } from "./server-helpers.js";

const gateway = useGateway({ config: { keys: [{ key: "sk-test-langchain" }] } });
const chat = (model: string) =>
  new ChatOpenAI({ model, apiKey: "sk-test-langchain", configuration: { baseURL: gateway().baseURL } });

const weather = tool(async ({ city }: { city: string }) => `It is sunny in ${city}.`, {
  name: "get_weather",
  description: "Current weather in a city",
  schema: z.object({ city: z.string() }),
});

describe("LangChain ChatOpenAI against the local gateway", () => {
  it("invokes a model and reports token usage", async () => {
    const reply = await chat("beta-4o").invoke([new HumanMessage("Say hello in French.")]);
    expect(typeof reply.content).toBe("string");
    expect((reply.content as string).length).toBeGreaterThan(0);
    expect(reply.usage_metadata!.total_tokens).toBe(
      reply.usage_metadata!.input_tokens + reply.usage_metadata!.output_tokens,
    );
  });

  it("streams a reply whose usage is counted once", async () => {
    const model = chat("gamma-2.5-flash");
    let merged: AIMessageChunk | undefined;
    let chunks = 0;
    for await (const chunk of await model.stream("Describe a forest in three sentences.")) {
      merged = merged ? merged.concat(chunk) : chunk;
      chunks++;
    }
    expect(chunks).toBeGreaterThan(1);
    expect((merged!.content as string).length).toBeGreaterThan(0);
    const whole = await model.invoke("Describe a forest in three sentences.");
    expect(merged!.content).toBe(whole.content);
    expect(merged!.usage_metadata).toEqual(whole.usage_metadata);
  });

  it("calls a bound tool and answers the tool's result", async () => {
    const model = chat("alpha-sonnet-4-6").bindTools([weather], { tool_choice: "get_weather" });
    const question = new HumanMessage("What's the weather in Lisbon?");
    const call = (await model.invoke([question])) as AIMessage;
    expect(call.tool_calls).toHaveLength(1);
    expect(call.tool_calls![0]!.name).toBe("get_weather");
    expect(call.tool_calls![0]!.args).toBeTypeOf("object");
    const result = new ToolMessage({
      tool_call_id: call.tool_calls![0]!.id!,
      content: await weather.invoke(call.tool_calls![0]!.args as { city: string }),
    });
    const answer = await chat("alpha-sonnet-4-6").bindTools([weather]).invoke([question, call, result]);
    expect(answer.tool_calls ?? []).toHaveLength(0);
    expect(String(answer.content).length).toBeGreaterThan(0);
  });

  it("streams tool-call chunks that merge into the calls a plain request returns", async () => {
    const model = chat("beta-4o").bindTools([weather], { tool_choice: "get_weather" });
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await model.stream("Weather in Oslo?")) merged = merged ? merged.concat(chunk) : chunk;
    const whole = (await model.invoke("Weather in Oslo?")) as AIMessage;
    expect(merged!.tool_calls!.length).toBeGreaterThan(0);
    expect(merged!.tool_calls!.every((call) => call.name === "get_weather")).toBe(true);
    expect(merged!.tool_calls!.map(({ id, args }) => ({ id, args }))).toEqual(
      whole.tool_calls!.map(({ id, args }) => ({ id, args })),
    );
  });
});
