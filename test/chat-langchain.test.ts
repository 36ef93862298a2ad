import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startHarness, type Harness } from "./chat-harness.js";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

const weather = tool(async ({ city }) => `It is sunny and 21 degrees in ${city}.`, {
  name: "get_weather",
  description: "Current weather for a city",
  schema: z.object({ city: z.string().describe("City name") }),
});

describe("ChatGateway inside LangChain", () => {
  it("works in an LCEL pipe with a prompt template and an output parser", async () => {
    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "You write short taglines."],
      ["human", "A tagline for {product}."],
    ]);
    const chain = prompt.pipe(harness.model({ model: "alpha-sonnet-4-6" })).pipe(new StringOutputParser());
    const text = await chain.invoke({ product: "a solar lantern" });
    expect(typeof text).toBe("string");
    expect(text.length).toBeGreaterThan(0);
    const pieces: string[] = [];
    for await (const piece of await chain.stream({ product: "a solar lantern" })) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(text);
  });

  it("emits streamEvents (v2) with stream chunks and one end event carrying usage", async () => {
    const model = harness.model({ model: "beta-4o" });
    const kinds: string[] = [];
    let ended: AIMessage | undefined;
    for await (const event of model.streamEvents("Tell me about tides.", { version: "v2" })) {
      kinds.push(event.event);
      if (event.event === "on_chat_model_end") ended = event.data.output as AIMessage;
    }
    expect(kinds.filter((kind) => kind === "on_chat_model_stream").length).toBeGreaterThan(1);
    expect(ended?.usage_metadata?.output_tokens).toBeGreaterThan(0);
    expect(ended?.response_metadata.model_name).toBe("beta-4o-2024-11-20");
  });

  it("serves the content-block streamEvents API", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const stream = model.streamEvents("Tell me about tides.");
    let text = "";
    for await (const token of stream.text) text += token;
    const message = await stream;
    expect(text.length).toBeGreaterThan(0);
    expect(message.text).toBe(text);
  });

  it("calls handleLLMNewToken for each streamed token and handleLLMEnd once with token usage", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const tokens: string[] = [];
    const usage: unknown[] = [];
    let text = "";
    for await (const chunk of await model.stream("Count to five.", {
      callbacks: [
        {
          handleLLMNewToken: (token) => void tokens.push(token),
          handleLLMEnd: (output) => void usage.push(output.llmOutput?.tokenUsage),
        },
      ],
    })) {
      text += chunk.text;
    }
    expect(tokens.join("")).toBe(text);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ totalTokens: expect.any(Number) });
  });

  it("drives a createAgent tool loop to a final answer", async () => {
    const agent = createAgent({ model: harness.model({ model: "alpha-sonnet-4-6" }), tools: [weather] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "What is the weather in Kyoto?" }] });
    const toolMessages = result.messages.filter((message) => ToolMessage.isInstance(message));
    expect(toolMessages.length).toBeGreaterThan(0);
    expect(String(toolMessages[0]?.content)).toMatch(/Kyoto/);
    const last = result.messages.at(-1);
    expect(AIMessage.isInstance(last)).toBe(true);
    expect((last as AIMessage).tool_calls ?? []).toEqual([]);
  });

  it("gives createAgent a structured response through a tool strategy", async () => {
    const answer = z.object({ city: z.string(), summary: z.string() });
    const agent = createAgent({ model: harness.model({ model: "beta-4o" }), tools: [], responseFormat: answer });
    const result = await agent.invoke({
      messages: [{ role: "user", content: "Kyoto is sunny today. Give the city and a summary." }],
    });
    expect(answer.safeParse(result.structuredResponse).success).toBe(true);
  });
});
