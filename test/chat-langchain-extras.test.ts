import { InMemoryCache } from "@langchain/core/caches";
import type { AIMessageChunk } from "@langchain/core/messages";
import { RunCollectorCallbackHandler } from "@langchain/core/tracers/run_collector";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countTextTokens } from "../src/catalog/tokens.js";
import type { ChatGatewayOptions } from "../src/langchain/chat-gateway-options.js";
import { KEY, startHarness, startRecordingProxy, type Harness } from "./chat-harness.js";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

describe("ChatGateway as LangChain tracers and callbacks see it", () => {
  it("gives LangSmith the provider, model, type, temperature, output budget and stop words", () => {
    const model = harness.model({ model: "beta-4o-mini", temperature: 0.3, maxTokens: 200, stop: ["END"] });
    expect(model.getLsParams({} as never)).toEqual({
      ls_provider: "svc-gateway",
      ls_model_name: "beta-4o-mini",
      ls_model_type: "chat",
      ls_temperature: 0.3,
      ls_max_tokens: 200,
      ls_stop: ["END"],
    });
  });

  it("feeds handleLLMNewToken on invoke when streaming is on, token by token", async () => {
    const model = harness.model({ model: "beta-4o-mini", streaming: true });
    const tokens: string[] = [];
    const reply = await model.invoke("Count to five.", {
      callbacks: [{ handleLLMNewToken: (token) => void tokens.push(token) }],
    });
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe(reply.text);
    expect(reply.usage_metadata?.total_tokens).toBeGreaterThan(0);
  });

  it("gives every streamed chunk the reply's id", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await model.stream("Count to five.")) chunks.push(chunk);
    const ids = new Set(chunks.map((chunk) => chunk.id));
    expect(chunks.length).toBeGreaterThan(2);
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/\S/);
  });

  it("counts tokens with the shipped tokenizer, without the network", async () => {
    const model = harness.model({ model: "beta-4o-mini", baseURL: "http://127.0.0.1:9/v1" });
    const text = "The quick brown fox jumps over the lazy dog.";
    expect(await model.getNumTokens(text)).toBe(countTextTokens(text));
    expect(
      await model.getNumTokens([
        { type: "text", text },
        { type: "text", text },
      ]),
    ).toBe(countTextTokens(text + text));
  });

  it("keeps the answers of two models apart in a shared LangChain cache", async () => {
    const cache = new InMemoryCache();
    const alpha = harness.model({ model: "alpha-sonnet-4-6", cache });
    const gamma = harness.model({ model: "gamma-2.5-flash", cache });
    expect((await alpha.invoke("Name a colour.")).response_metadata.model).toBe("alpha-sonnet-4-6");
    expect((await gamma.invoke("Name a colour.")).response_metadata.model).toBe("gamma-2.5-flash");
  });

  it("identifies a model by its id and settings, never by its key or address", () => {
    const model = harness.model({
      model: "beta-4o-mini",
      temperature: 0.2,
      maxTokens: 100,
      fallbacks: ["gamma-2.5-flash"],
    });
    const params = model.identifyingParams();
    expect(params).toMatchObject({
      model_name: "beta-4o-mini",
      fallbacks: ["gamma-2.5-flash"],
      temperature: 0.2,
      max_tokens: 100,
    });
    const text = JSON.stringify(params);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(harness.gateway.baseURL);
  });

  it.each<[string, Omit<ChatGatewayOptions, "model">]>([
    ["alpha-opus-4-8", { temperature: 0.4, maxTokens: 300 }],
    ["beta-5", { temperature: 0.4, maxTokens: 3000 }],
    ["gamma-2.5-pro", { maxTokens: 300, stop: ["END"] }],
  ])("shows tracers the settings %s was sent, as the wire carried them", async (model, settings) => {
    const proxy = await startRecordingProxy(harness.gateway.rootURL);
    try {
      const collector = new RunCollectorCallbackHandler();
      await harness.model({ model, baseURL: proxy.baseURL, ...settings }).invoke("Hello.", { callbacks: [collector] });
      const { model: _model, messages: _messages, stream: _stream, ...sent } = proxy.requests.at(-1)!.body;
      const { model: traced, fallbacks: _fallbacks, ...params } = collector.tracedRuns[0]!.extra!.invocation_params;
      expect(traced).toBe(model);
      expect(params).toEqual(sent);
    } finally {
      await proxy.close();
    }
  });

  it("gives a relay's cached and audio prompt tokens as input_token_details, invoked and streamed", async () => {
    // new-api sends prompt_tokens_details with cached_tokens and audio_tokens on every reply.
    const relayed = await startHarness({ dialect: "new-api" });
    try {
      const model = relayed.model({ model: "beta-4o-mini" });
      const invoked = await model.invoke("Count to five.");
      let merged: AIMessageChunk | undefined;
      for await (const chunk of await model.stream("Count to five."))
        merged = merged === undefined ? chunk : merged.concat(chunk);
      expect(invoked.usage_metadata?.input_token_details).toEqual({ audio: 0, cache_read: 0 });
      expect(merged?.usage_metadata?.input_token_details).toEqual({ audio: 0, cache_read: 0 });
    } finally {
      await relayed.close();
    }
  });
});
