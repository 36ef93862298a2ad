import type { AIMessageChunk } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { ParameterWarning } from "../src/chat/parameter-warning.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { ConfigError, ContextWindowError, ParameterError, UnknownModelError } from "../src/errors.js";
import type { PlannedOperation } from "../src/gateway/usage-recorder.js";
import { KEY, useRecordedHarness } from "./chat-harness.js";

const { harness, proxy, lastBody } = useRecordedHarness();

async function collect(
  stream: AsyncIterable<AIMessageChunk>,
): Promise<{ chunks: AIMessageChunk[]; message: AIMessageChunk }> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { chunks, message: chunks.reduce((left, right) => left.concat(right)) };
}

describe("ChatGateway against the local gateway", () => {
  it("invokes and reports usage, the dated model that served, the finish reason and the three ids", async () => {
    const model = harness().model({ model: "alpha-sonnet-4-6" });
    const reply = await model.invoke("Name three colours.");
    expect(reply.text.length).toBeGreaterThan(0);
    expect(reply.usage_metadata?.total_tokens).toBe(
      (reply.usage_metadata?.input_tokens ?? 0) + (reply.usage_metadata?.output_tokens ?? 0),
    );
    expect(reply.response_metadata).toMatchObject({
      model_name: "alpha-sonnet-4-6-20260115",
      model: "alpha-sonnet-4-6",
      finish_reason: "stop",
    });
    expect(reply.response_metadata.request_id).toMatch(/\S/);
    expect(reply.response_metadata.audit_id).toMatch(/\S/);
    expect(reply.response_metadata.backend_id).toMatch(/\S/);
  });

  it("streams text in pieces and takes usage from the final chunk once, never summed", async () => {
    const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
    const { chunks, message } = await collect(await model.stream("Tell me a story about a lighthouse keeper."));
    expect(lastBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks.filter((chunk) => chunk.text.length > 0).length).toBeGreaterThan(1);
    expect(chunks.filter((chunk) => chunk.usage_metadata !== undefined)).toHaveLength(1);
    const invoked = await model.invoke("Tell me a story about a lighthouse keeper.");
    // The same conversation gets the same reply streamed or not, so the counts must agree.
    expect(message.text).toBe(invoked.text);
    expect(message.usage_metadata?.output_tokens).toBe(invoked.usage_metadata?.output_tokens);
    expect(message.usage_metadata?.input_tokens).toBe(invoked.usage_metadata?.input_tokens);
    expect(message.response_metadata.model_name).toBe("beta-4o-2024-11-20");
    expect(message.response_metadata.finish_reason).toBe("stop");
  });

  it("runs a batch, one reply per input", async () => {
    const model = harness().model({ model: "beta-4o-mini" });
    const replies = await model.batch(["One.", "Two.", "Three."]);
    expect(replies).toHaveLength(3);
    for (const reply of replies) expect(reply.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it("reserves every attempt with the exact wire request and settles it with usage and the served model", async () => {
    const ledger = new CostLedger();
    const planned: PlannedOperation[] = [];
    const recorder = { reserve: (operation: PlannedOperation) => (planned.push(operation), ledger.reserve(operation)) };
    const model = harness().model({
      model: "alpha-sonnet-4-6",
      maxTokens: 64,
      ledger: recorder,
      usageTags: { step: "t" },
      baseURL: proxy().baseURL,
    });
    const reply = await model.invoke("Hello there.");
    expect(planned).toHaveLength(1);
    expect(planned[0]).toMatchObject({ kind: "chat", tags: { step: "t" } });
    expect(planned[0]?.kind === "chat" && planned[0].request).toEqual(lastBody());
    const [entry] = ledger.entries();
    expect(entry).toMatchObject({
      status: "ok",
      modelServed: "alpha-sonnet-4-6-20260115",
      promptTokens: reply.usage_metadata?.input_tokens,
      completionTokens: reply.usage_metadata?.output_tokens,
      priceSource: "published",
    });
  });

  it("sends maxTokens as max_completion_tokens to beta-5 and warns once per instance", async () => {
    const warnings = harness().warnings.length;
    const model = harness().model({ model: "beta-5", maxTokens: 2000, baseURL: proxy().baseURL });
    await model.invoke("Hi.");
    expect(lastBody()).toMatchObject({ max_completion_tokens: 2000 });
    expect(lastBody()).not.toHaveProperty("max_tokens");
    await model.invoke("Hi again.");
    expect(
      harness()
        .warnings.slice(warnings)
        .map((warning) => warning.code),
    ).toEqual(["max_tokens_renamed"]);
  });

  it("drops temperature and top_p for alpha-opus-4-8 so the gateway does not answer 400", async () => {
    const model = harness().model({ model: "alpha-opus-4-8", temperature: 0.3, topP: 0.5, baseURL: proxy().baseURL });
    await expect(model.invoke("Hi.")).resolves.toBeDefined();
    expect(lastBody()).not.toHaveProperty("temperature");
    expect(lastBody()).not.toHaveProperty("top_p");
    expect(
      harness().warnings.some((warning) => warning.code === "sampling_dropped" && warning.model === "alpha-opus-4-8"),
    ).toBe(true);
  });

  it("gives gamma-2.5-pro at least 4096 output tokens", async () => {
    const model = harness().model({ model: "gamma-2.5-pro", maxTokens: 256, baseURL: proxy().baseURL });
    await model.invoke("Hi.");
    expect(lastBody()).toMatchObject({ max_tokens: 4096 });
    expect(harness().warnings.some((warning) => warning.code === "budget_raised")).toBe(true);
  });

  it("streams an output budget above 16K even through invoke", async () => {
    const model = harness().model({ model: "alpha-sonnet-4-6", maxTokens: 20_000, baseURL: proxy().baseURL });
    const reply = await model.invoke("Hi.");
    expect(lastBody()).toMatchObject({ stream: true, max_tokens: 20_000 });
    expect(reply.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it("refuses bad settings, unknown models and oversized prompts before any request", async () => {
    const before = proxy().requests.length;
    expect(() => new ChatGateway({ model: "alpha-sonet-4-6", apiKey: KEY, baseURL: proxy().baseURL })).toThrow(
      UnknownModelError,
    );
    expect(() => new ChatGateway({ model: "alpha-sonet-4-6", apiKey: KEY, baseURL: proxy().baseURL })).toThrow(
      /Did you mean "alpha-sonnet-4-6"/,
    );
    expect(
      () => new ChatGateway({ model: "beta-4o", fallbacks: ["beta-6"], apiKey: KEY, baseURL: proxy().baseURL }),
    ).toThrow(UnknownModelError);
    expect(
      () => new ChatGateway({ model: "beta-4o", temperature: 1.2, apiKey: KEY, baseURL: proxy().baseURL }),
    ).toThrow(ParameterError);
    expect(() => new ChatGateway({ model: "beta-4o", apiKey: "oops", baseURL: proxy().baseURL })).toThrow(ConfigError);
    const model = harness().model({ model: "alpha-sonnet-4-6", baseURL: proxy().baseURL });
    await expect(model.invoke("word ".repeat(205_000))).rejects.toThrow(ContextWindowError);
    expect(proxy().requests.length).toBe(before);
  });

  it("emits warnings through process.emitWarning by default, once per instance", async () => {
    const seen: Error[] = [];
    const listener = (warning: Error): void => void seen.push(warning);
    process.on("warning", listener);
    const model = new ChatGateway({
      model: "beta-5-mini",
      maxTokens: 800,
      apiKey: KEY,
      baseURL: harness().gateway.baseURL,
    });
    try {
      await model.invoke("Hi.");
      await model.invoke("Hi.");
      await new Promise((resolve) => setImmediate(resolve));
      const ours = seen.filter((warning) => warning instanceof ParameterWarning);
      expect(ours.map((warning) => (warning as ParameterWarning).code)).toEqual(["max_tokens_renamed"]);
    } finally {
      process.off("warning", listener);
      await model.close();
    }
  });

  it("passes stop sequences from the call", async () => {
    const model = harness().model({ model: "beta-4o-mini", baseURL: proxy().baseURL });
    await model.invoke("Count to ten.", { stop: ["5"] });
    expect(lastBody()).toMatchObject({ stop: ["5"] });
  });

  it("honours an AbortSignal", async () => {
    const model = harness().model({ model: "beta-4o-mini" });
    const controller = new AbortController();
    controller.abort();
    await expect(model.invoke("Hi.", { signal: controller.signal })).rejects.toThrow(/abort/i);
  });

  it("never puts the API key into what LangChain serializes", () => {
    const model = new ChatGateway({ model: "beta-4o", apiKey: "sk-very-secret-key", baseURL: proxy().baseURL });
    expect(JSON.stringify(model.toJSON())).not.toContain("very-secret");
  });
});
