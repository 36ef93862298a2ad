import { inspect } from "node:util";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import { IterableReadableStream } from "@langchain/core/utils/stream";
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

  it("invokes to the same message as LangChain's own generate path", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const prompt = "Name three uses of a lighthouse.";
    const ours = (await model.invoke(prompt)) as AIMessageChunk;
    const theirs = (await BaseChatModel.prototype.invoke.call(model, prompt)) as AIMessageChunk;
    expect(ours.content).toBeTruthy();
    // The id is the gateway's response id, new for each request.
    expect(ours.id).toMatch(/^chatcmpl-/);
    expect({ ...comparable(ours), id: undefined }).toEqual({ ...comparable(theirs), id: undefined });
    // LangChain merges llmOutput and generationInfo into response_metadata; so does the direct path.
    expect(ours.response_metadata).toMatchObject({ finish_reason: "stop", tokenUsage: { totalTokens: ours.usage_metadata?.total_tokens } });
  });

  it("returns a real ReadableStream: a reader reads the same chunks a for-await loop does", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const prompt = "Tell me about tides in three sentences.";
    const stream = await model.stream(prompt);
    expect(stream).toBeInstanceOf(ReadableStream);
    const reader = stream.getReader();
    const read: AIMessageChunk[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value);
    expect(read.length).toBeGreaterThan(2);
    expect(read.map(comparable)).toEqual(await ownLoop(model, prompt, false));
  });

  it("is a ReadableStream to every use: locked, tee, pipeTo, and a reader after iterating", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const prompt = "Tell me about tides in three sentences.";
    const expected = await ownLoop(model, prompt, false);

    const stream = await model.stream(prompt);
    expect(stream).toBeInstanceOf(IterableReadableStream);
    expect(stream.locked).toBe(false);
    expect(inspect(stream)).toContain("ReadableStream");
    // Iterating first, then a reader: the reader goes on from where iteration stopped.
    const first = await stream.next();
    const reader = stream.getReader();
    expect(stream.locked).toBe(true);
    const rest: AIMessageChunk[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
    expect([first.value as AIMessageChunk, ...rest].map(comparable)).toEqual(expected);

    const [left, right] = (await model.stream(prompt)).tee();
    const drain = async (branch: ReadableStream<AIMessageChunk>) => {
      const chunks: AIMessageChunk[] = [];
      for await (const chunk of branch) chunks.push(chunk);
      return chunks.map(comparable);
    };
    expect(await Promise.all([drain(left), drain(right)])).toEqual([expected, expected]);

    const piped: AIMessageChunk[] = [];
    await (await model.stream(prompt)).pipeTo(new WritableStream({ write: (chunk) => void piped.push(chunk) }));
    expect(piped.map(comparable)).toEqual(expected);
  });

  it("frees the connection when cancelled before any read", async () => {
    const model = harness.model({ model: "beta-4o-mini", maxConcurrency: 1 });
    for (let call = 0; call < 3; call++) await (await model.stream("Write a long essay about the sea.")).cancel();
    expect((await model.invoke("Say hello.")).content).toBeTruthy();
  });

  it("rejects stream() itself when the call fails before the first chunk, as LangChain's stream does", async () => {
    const model = harness.model({ model: "beta-4o-mini", apiKey: "sk-not-a-key-of-this-gateway" });
    await expect(model.stream("Hi.")).rejects.toMatchObject({ status: 401 });
  });

  it("stops reading and frees the connection when the consumer breaks out early", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    let seen = 0;
    for await (const _chunk of await model.stream("Write a long essay about the sea.")) if (++seen === 2) break;
    expect(seen).toBe(2);
    // The next call gets a connection and completes: nothing was left holding the slot.
    const reply = await model.invoke("Say hello.");
    expect(reply.content).toBeTruthy();
  });
});

