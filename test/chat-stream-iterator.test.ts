import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import type { ChatGateway } from "../src/langchain/chat-gateway.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./chat-harness.js";

let harness: Harness;

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

describe("ChatGateway stream", () => {
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

/** What a caller sees of a streamed chunk, without the per-request gateway ids. */
function visible(chunk: AIMessageChunk) {
  const { request_id: _request, audit_id: _audit, backend_id: _backend, ...metadata } = chunk.response_metadata;
  return {
    type: chunk.type,
    content: chunk.content,
    tool_call_chunks: chunk.tool_call_chunks,
    additional_kwargs: chunk.additional_kwargs,
    usage_metadata: chunk.usage_metadata,
    response_metadata: metadata,
  };
}

/** LangChain's own `_streamIterator` (per-chunk aggregate included) on the same model. */
async function plainStream(model: ChatGateway, input: string, options = {}): Promise<AIMessageChunk[]> {
  const chunks: AIMessageChunk[] = [];
  const iterator = BaseChatModel.prototype._streamIterator.call(model, input, options);
  for await (const chunk of iterator) chunks.push(chunk as AIMessageChunk);
  return chunks;
}

describe("ChatGateway stream with nobody listening", () => {
  it("yields the same chunks as LangChain's own stream path", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const prompt = "Write two sentences about the sea.";
    const plain = await plainStream(model, prompt);
    const ours: AIMessageChunk[] = [];
    for await (const chunk of await model.stream(prompt)) ours.push(chunk);
    expect(ours.length).toBeGreaterThan(2);
    expect(ours.map(visible)).toEqual(plain.map(visible));
    expect(new Set(ours.map((chunk) => chunk.id)).size).toBe(1);
    expect(ours[0]!.id).toBeTruthy();
  });

  it("yields the same tool-call chunks as LangChain's own stream path", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const prompt = "What is the weather in Paris and in Tokyo?";
    const plain = await plainStream(model, prompt, { tools: [WEATHER] });
    const ours: AIMessageChunk[] = [];
    for await (const chunk of await model.bindTools([WEATHER]).stream(prompt)) ours.push(chunk);
    expect(ours.some((chunk) => (chunk.tool_call_chunks ?? []).length > 0)).toBe(true);
    expect(ours.map(visible)).toEqual(plain.map(visible));
  });

  it("merges its chunks into the message invoke returns", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await model.stream("Write two sentences about the sea."))
      merged = merged === undefined ? chunk : merged.concat(chunk);
    const invoked = await model.invoke("Write two sentences about the sea.");
    expect(merged?.content).toBe(invoked.content);
    // LangChain's merge adds an empty `input_token_details`; the counts are the reply's.
    expect(merged?.usage_metadata).toMatchObject(invoked.usage_metadata!);
  });

  it("gives a readable stream a reader reads to the same chunks, as LangChain's stream does", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const prompt = "Write two sentences about the sea.";
    const plain = await plainStream(model, prompt);
    const reader = (await model.stream(prompt)).getReader();
    const read: AIMessageChunk[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value);
    expect(read.map(visible)).toEqual(plain.map(visible));
  });

  it("stops with an abort error when the signal fires mid-stream", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const controller = new AbortController();
    const read = async () => {
      for await (const _chunk of await model.stream("Write a long essay about the sea.", { signal: controller.signal }))
        controller.abort();
    };
    await expect(read()).rejects.toThrow(/abort/i);
  });

  it("still tells a handler added to the model itself of every token and the end", async () => {
    const tokens: string[] = [];
    const ends: unknown[] = [];
    const model = harness.model({
      model: "beta-4o-mini",
      callbacks: [
        {
          handleLLMNewToken: (token) => void tokens.push(token),
          handleLLMEnd: (output) => void ends.push(output.generations[0]?.[0]?.text),
        },
      ],
    });
    let text = "";
    for await (const chunk of await model.stream("Write two sentences about the sea.")) text += chunk.text;
    expect(tokens.join("")).toBe(text);
    expect(ends).toEqual([text]);
  });
});

describe("an aborted ChatGateway stream", () => {
  let slow: Harness;
  beforeAll(async () => {
    // Each chunk comes 200 ms after the last, so an abort lands while the stream waits for one.
    slow = await startHarness({ faults: { models: { "beta-4o-mini": { chunkDelayMs: 200 } } } });
  });
  afterAll(async () => {
    await slow.close();
  });
  const listeners = { "nobody listening": {}, "a handler listening": { callbacks: [{ handleLLMNewToken() {} }] } };

  it.each(Object.keys(listeners))(
    "rejects with the signal's reason when aborted while waiting for a chunk, with %s",
    async (name) => {
      const model = slow.model({ model: "beta-4o-mini" });
      const controller = new AbortController();
      const reason = new Error("the user pressed stop");
      const options = { signal: controller.signal, ...listeners[name as keyof typeof listeners] };
      const read = async () => {
        for await (const _chunk of await model.stream("Write a long essay about the sea.", options))
          setTimeout(() => controller.abort(reason), 20);
      };
      await expect(read()).rejects.toBe(reason);
    },
  );

  it.each(Object.keys(listeners))(
    "rejects stream() with the signal's reason when aborted before the first chunk, with %s",
    async (name) => {
      const model = slow.model({ model: "beta-4o-mini" });
      const reason = new Error("the user pressed stop");
      const options = { signal: AbortSignal.abort(reason), ...listeners[name as keyof typeof listeners] };
      await expect(model.stream("Write a long essay about the sea.", options)).rejects.toBe(reason);
    },
  );
});
