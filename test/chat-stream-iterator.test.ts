import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatGateway } from "../src/chat/chat-gateway.js";
import { startHarness, type Harness } from "./chat-harness.js";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

const WEATHER = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } },
};

// The gateway's ids differ per request; everything else about a reply is the same for the same prompt.
function comparable(chunk: AIMessageChunk) {
  const { request_id: _request, audit_id: _audit, backend_id: _backend, ...metadata } = chunk.response_metadata;
  return {
    content: chunk.content,
    tool_call_chunks: chunk.tool_call_chunks,
    tool_calls: chunk.tool_calls,
    additional_kwargs: chunk.additional_kwargs,
    response_metadata: metadata,
    usage_metadata: chunk.usage_metadata,
    id: chunk.id,
  };
}

type Chunks = ReturnType<typeof comparable>[];

async function ownLoop(model: ChatGateway, prompt: string, tools: boolean) {
  const runnable = tools ? model.bindTools([WEATHER]) : model;
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of await runnable.stream(prompt)) chunks.push(chunk);
  return chunks.map(comparable);
}

async function langchainLoop(model: ChatGateway, prompt: string, tools: boolean) {
  const options = tools ? { tools: [WEATHER] } : {};
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of BaseChatModel.prototype._streamIterator.call(model, prompt, options)) chunks.push(chunk as AIMessageChunk);
  return chunks.map(comparable);
}

describe("ChatGateway stream without callbacks", () => {
  it.each([
    ["text", "beta-4o-mini", "Tell me about tides in three sentences.", false, (chunks: Chunks) => chunks.length > 2],
    ["tool-call", "beta-4o-mini", "What is the weather in Paris and Tokyo?", true, (chunks: Chunks) => chunks.some((chunk) => chunk.tool_call_chunks?.length)],
    ["image", "gamma-2.5-flash-image", "A lighthouse at dusk.", false, (chunks: Chunks) => Array.isArray(chunks.at(-1)?.content)],
  ])("yields the same %s chunks as LangChain's own streaming loop", async (_kind, id, prompt, tools, shows) => {
    const model = harness.model({ model: id });
    const ours = await ownLoop(model, prompt, tools);
    const theirs = await langchainLoop(model, prompt, tools);
    expect(shows(ours)).toBe(true);
    expect(ours).toEqual(theirs);
  });

  it("hands over to LangChain's loop when a callback handler is attached, so handleLLMEnd gets the folded reply", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    let ended: { text: string; runId: string | undefined } | undefined;
    const ids = new Set<string | undefined>();
    let text = "";
    for await (const chunk of await model.stream("Tell me about tides.", {
      callbacks: [{ handleLLMEnd: (output, runId) => void (ended = { text: output.generations[0]?.[0]?.text ?? "", runId }) }],
    })) {
      ids.add(chunk.id);
      text += chunk.text;
    }
    expect(ended?.text).toBe(text);
    // LangChain names every chunk after the run when it has run managers.
    expect([...ids]).toEqual([`run-${ended?.runId}`]);
  });
});
