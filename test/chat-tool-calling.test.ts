import { AIMessage, HumanMessage, ToolMessage, type AIMessageChunk } from "@langchain/core/messages";
import { DynamicStructuredTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { TOOL_CALL_EXTRAS_KEY } from "../src/langchain/convert-messages.js";
import { useRecordedHarness } from "./chat-harness.js";

const { harness, proxy, lastBody } = useRecordedHarness();
const wireTools = (): Array<{ function: { name: string; description?: string; parameters: unknown } }> =>
  lastBody().tools as Array<{ function: { name: string; description?: string; parameters: unknown } }>;

// What a weather tool's parameters must look like on the wire, written out by hand.
const WEATHER_PARAMETERS = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    unit: { type: "string", enum: ["c", "f"] },
    days: { type: "integer", minimum: 1, maximum: 7 },
  },
  required: ["city", "days"],
};

const weatherV4 = tool(async ({ city }) => `Sunny in ${city}.`, {
  name: "get_weather",
  description: "Current weather for a city",
  schema: z.object({
    city: z.string().describe("City name"),
    unit: z.enum(["c", "f"]).optional(),
    days: z.number().int().min(1).max(7),
  }),
});

describe("tool calling against the local gateway", () => {
  it("sends a tool's zod 4 parameters intact", async () => {
    await harness()
      .model({ model: "beta-4o", baseURL: proxy().baseURL })
      .bindTools([weatherV4])
      .invoke("Weather in Paris for 3 days?");
    const [wire] = wireTools();
    expect(wire?.function.name).toBe("get_weather");
    expect(wire?.function.description).toBe("Current weather for a city");
    expect(wire?.function.parameters).toEqual(WEATHER_PARAMETERS);
  });

  it("sends zod 3 parameters, JSON Schema and a StructuredTool class intact", async () => {
    const zod3 = tool(async () => "ok", {
      name: "weather_v3",
      description: "v3",
      schema: z3.object({
        city: z3.string().describe("City name"),
        unit: z3.enum(["c", "f"]).optional(),
        days: z3.number().int().min(1).max(7),
      }),
    });
    const structured = new DynamicStructuredTool({
      name: "weather_class",
      description: "class",
      schema: z.object({
        city: z.string().describe("City name"),
        unit: z.enum(["c", "f"]).optional(),
        days: z.number().int().min(1).max(7),
      }),
      func: async () => "ok",
    });
    const json = { name: "weather_json", description: "json", schema: WEATHER_PARAMETERS };
    await harness()
      .model({ model: "beta-4o", baseURL: proxy().baseURL })
      .bindTools([zod3, structured, json])
      .invoke("Hello.");
    for (const wire of wireTools()) expect(wire.function.parameters).toMatchObject(WEATHER_PARAMETERS);
  });

  it.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    ["any", "required"],
    ["get_weather", { type: "function", function: { name: "get_weather" } }],
  ])("sends tool_choice %j as %j", async (choice, wire) => {
    await harness()
      .model({ model: "beta-4o", baseURL: proxy().baseURL })
      .bindTools([weatherV4], { tool_choice: choice })
      .invoke("Hello.");
    expect(lastBody().tool_choice).toEqual(wire);
  });

  it("returns parallel tool calls with arguments valid for the schema", async () => {
    const reply = await harness()
      .model({ model: "beta-4o" })
      .bindTools([weatherV4])
      .invoke("What is the weather in Paris and in Tokyo for 2 days?");
    expect(reply.tool_calls?.map((call) => call.args.city)).toEqual(["Paris", "Tokyo"]);
    for (const call of reply.tool_calls ?? []) expect(weatherV4.schema.safeParse(call.args).success).toBe(true);
  });

  it("streams tool_call_chunks that assemble into the same tool calls invoke returns", async () => {
    const bound = harness().model({ model: "beta-4o" }).bindTools([weatherV4]);
    const question = "What is the weather in Paris and in Tokyo for 2 days?";
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await bound.stream(question)) chunks.push(chunk);
    expect(
      chunks.filter((chunk) => chunk.tool_call_chunks && chunk.tool_call_chunks.length > 0).length,
    ).toBeGreaterThan(2);
    const message = chunks.reduce((left, right) => left.concat(right));
    const invoked = await bound.invoke(question);
    expect(message.tool_calls?.map(({ id, name, args }) => ({ id, name, args }))).toEqual(
      invoked.tool_calls?.map(({ id, name, args }) => ({ id, name, args })),
    );
    expect(message.response_metadata.finish_reason).toBe("tool_calls");
  });

  it("keeps gamma's thought_signature on the message and sends it back on the next turn", async () => {
    const bound = harness().model({ model: "gamma-2.5-flash", baseURL: proxy().baseURL }).bindTools([weatherV4]);
    const question = new HumanMessage("What is the weather in Oslo for 1 day?");
    const first = await bound.invoke([question]);
    const [call] = first.tool_calls ?? [];
    const extras = first.additional_kwargs[TOOL_CALL_EXTRAS_KEY] as Record<string, { thought_signature?: string }>;
    const signature = extras[call!.id!]?.thought_signature;
    expect(signature).toMatch(/\S{16,}/);
    const answer = await bound.invoke([
      question,
      first,
      new ToolMessage({ content: await weatherV4.invoke(call!.args as never), tool_call_id: call!.id! }),
    ]);
    const sent = (lastBody().messages as Array<{ role: string; tool_calls?: Array<Record<string, unknown>> }>).find(
      (message) => message.role === "assistant",
    );
    expect(sent?.tool_calls?.[0]).toMatchObject({ id: call!.id, thought_signature: signature });
    expect(answer).toBeInstanceOf(AIMessage);
    expect(answer.text.length).toBeGreaterThan(0);
  });

  it("runs a tool loop to a final answer", async () => {
    const bound = harness().model({ model: "alpha-sonnet-4-6" }).bindTools([weatherV4]);
    const messages: Array<HumanMessage | AIMessage | ToolMessage> = [
      new HumanMessage("What is the weather in Lima for 2 days?"),
    ];
    for (let round = 0; round < 4; round++) {
      const reply = await bound.invoke(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) break;
      for (const call of reply.tool_calls) {
        messages.push(new ToolMessage({ content: await weatherV4.invoke(call.args as never), tool_call_id: call.id! }));
      }
    }
    const last = messages.at(-1) as AIMessage;
    expect(last.tool_calls ?? []).toEqual([]);
    expect(last.text).toMatch(/Lima|sunny/i);
  });

  it("does not send tool_choice auto or none when no tools are bound", async () => {
    const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
    await model.invoke("Hello.", { tool_choice: "auto" });
    expect(lastBody()).not.toHaveProperty("tool_choice");
    await model.bindTools([], { tool_choice: "none" }).invoke("Hello.");
    expect(lastBody()).not.toHaveProperty("tool_choice");
  });

  it.each(["required", "any", "get_weather"])(
    "refuses tool_choice %s with no tools bound, before sending",
    async (choice) => {
      const sent = proxy().requests.length;
      const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
      await expect(model.bindTools([], { tool_choice: choice }).invoke("Hello.")).rejects.toThrow(/no tools are bound/);
      expect(proxy().requests.length).toBe(sent);
    },
  );

  it.each(["get weather", "weather.get", "shop/search", "x".repeat(65)])(
    "refuses the tool name %s at bindTools, before anything is sent",
    (name) => {
      const sent = proxy().requests.length;
      const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
      const named = tool(async () => "sunny", { name, description: "Weather", schema: z.object({ city: z.string() }) });
      expect(() => model.bindTools([named])).toThrow(/letters, digits, _ and -/);
      expect(() =>
        model.bindTools([{ type: "function", function: { name, parameters: { type: "object", properties: {} } } }]),
      ).toThrow(/Rename it/);
      expect(proxy().requests.length).toBe(sent);
    },
  );
});
