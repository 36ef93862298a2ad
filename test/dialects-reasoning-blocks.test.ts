// ChatGateway surfaces a relay's `reasoning_content` as LangChain's standard reasoning block, as
// @langchain/deepseek does, invoked and streamed, beside `additional_kwargs.reasoning_content`.
import type { AIMessageChunk } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const PROMPT = "Explain why the sky is blue, step by step.";
const weather = tool(async ({ city }) => `Sunny in ${city}.`, {
  name: "get_weather",
  description: "Current weather for a city",
  schema: z.object({ city: z.string() }),
});
let relayed: LocalGateway;
let clean: LocalGateway;
const model = (gateway: LocalGateway, extra: { outputVersion?: "v0" | "v1" } = {}) =>
  new ChatGateway({ model: "beta-5-mini", apiKey: "sk-local-demo", baseURL: gateway.baseURL, maxRetries: 0, ...extra });

beforeAll(async () => {
  // new-api passes the model's reasoning along; the clean dialect does not.
  relayed = await startLocalGateway({ config: { dialect: "new-api" } });
  clean = await startLocalGateway({ config: {} });
});
afterAll(async () => {
  await relayed.close();
  await clean.close();
});

describe("reasoning as a standard content block", () => {
  it("puts the reasoning block before the text of an invoked reply, and keeps content a string", async () => {
    const message = await model(relayed).invoke(PROMPT);
    expect(typeof message.content).toBe("string");
    expect(message.additional_kwargs.reasoning_content).toMatch(/reasoning tokens/);
    expect(message.contentBlocks).toEqual([
      { type: "reasoning", reasoning: message.additional_kwargs.reasoning_content },
      { type: "text", text: message.content },
    ]);
  });

  it("gives each streamed reasoning piece as a reasoning block, and the merged message both blocks", async () => {
    let merged: AIMessageChunk | undefined;
    const pieces: string[] = [];
    for await (const chunk of await model(relayed).stream(PROMPT)) {
      for (const block of chunk.contentBlocks) if (block.type === "reasoning") pieces.push(block.reasoning);
      merged = merged === undefined ? chunk : merged.concat(chunk);
    }
    expect(pieces.join("")).toMatch(/reasoning tokens/);
    const blocks = merged!.contentBlocks;
    expect(blocks.map((block) => block.type)).toEqual(["reasoning", "text"]);
    expect(blocks[0]).toEqual({ type: "reasoning", reasoning: pieces.join("") });
    expect(merged!.additional_kwargs.reasoning_content).toBe(pieces.join(""));
  });

  it("puts the reasoning block in content itself with outputVersion v1", async () => {
    const message = await model(relayed, { outputVersion: "v1" }).invoke(PROMPT);
    expect(message.content).toEqual([
      { type: "reasoning", reasoning: expect.stringMatching(/reasoning tokens/) },
      { type: "text", text: expect.any(String) },
    ]);
  });

  it("gives only text blocks when the relay sends no reasoning", async () => {
    const message = await model(clean).invoke(PROMPT);
    expect(message.contentBlocks).toEqual([{ type: "text", text: message.content }]);
  });

  it("gives a tool-call reply's blocks with no empty text block, invoked and streamed", async () => {
    const bound = model(relayed, { outputVersion: "v1" }).bindTools([weather]);
    const message = await bound.invoke("What is the weather in Oslo?");
    expect((message.content as Array<{ type: string }>).map((block) => block.type)).toEqual(["reasoning", "tool_call"]);
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await bound.stream("What is the weather in Oslo?"))
      merged = merged === undefined ? chunk : merged.concat(chunk);
    expect(merged!.contentBlocks.filter((block) => block.type === "text")).toEqual([]);
    expect(merged!.tool_calls?.map((call) => call.name)).toEqual(["get_weather"]);
  });
});
