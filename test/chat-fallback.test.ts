import type { AIMessageChunk } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import type { ChatWarning } from "../src/chat/parameter-warning.js";
import type { PartialReply } from "../src/chat/collect-reply.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { AuthenticationError, EmptyOutputError, StreamError, TimeoutError, UpstreamError } from "../src/errors.js";
import { Scheduler } from "../src/scheduling/scheduler.js";
import { FaultInjector } from "../src/server/faults.js";
import type { GatewayConfigInput } from "../src/server/index.js";
import { startHarness, startRecordingProxy, type Harness, type RecordingProxy } from "./chat-harness.js";

let harness: Harness | undefined;
let proxy: RecordingProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  await harness?.close();
  proxy = undefined;
  harness = undefined;
});

async function setUp(config: GatewayConfigInput): Promise<{ harness: Harness; proxy: RecordingProxy }> {
  harness = await startHarness(config);
  proxy = await startRecordingProxy(harness.gateway.rootURL);
  return { harness, proxy };
}

const modelsSent = (recording: RecordingProxy): unknown[] => recording.requests.map((request) => request.body.model);

/** The first fault seed whose first decision for `model` (dropRate 1) cuts where `cutAt` wants. */
function seedWhere(model: string, wanted: (cutAt: number) => boolean): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const decision = new FaultInjector({
      seed,
      latencyMs: 0,
      models: {
        [model]: { errorRate: 0, status: 503, rateLimitRate: 0, retryAfterS: 1, dropRate: 1, chunkDelayMs: 0 },
      },
    }).decide(model);
    if (decision.kind === "drop" && wanted(decision.cutAt)) return seed;
  }
  throw new Error("no seed found");
}

describe("fallbacks", () => {
  it("moves from a failing model to the next after retries, re-mapping parameters for it", async () => {
    const { harness, proxy } = await setUp({ faults: { models: { "alpha-opus-4-8": { errorRate: 1, status: 503 } } } });
    const ledger = new CostLedger();
    const model = harness.model({
      model: "alpha-opus-4-8",
      fallbacks: ["beta-5", "gamma-2.5-pro"],
      temperature: 0.3,
      maxTokens: 3000,
      maxRetries: 2,
      ledger,
      baseURL: proxy.baseURL,
    });
    const reply = await model.invoke("Summarise the plot of Hamlet.");
    expect(modelsSent(proxy)).toEqual(["alpha-opus-4-8", "alpha-opus-4-8", "alpha-opus-4-8", "beta-5"]);
    expect(proxy.requests[0]?.body).not.toHaveProperty("temperature");
    expect(proxy.requests[3]?.body).toMatchObject({ max_completion_tokens: 3000, temperature: 0.3 });
    expect(proxy.requests[3]?.body).not.toHaveProperty("max_tokens");
    expect(reply.response_metadata).toMatchObject({
      model: "beta-5",
      requested_model: "alpha-opus-4-8",
      fallback_from: ["alpha-opus-4-8"],
    });
    expect(ledger.entries().map((entry) => [entry.modelRequested, entry.status])).toEqual([
      ["alpha-opus-4-8", "failed"],
      ["alpha-opus-4-8", "failed"],
      ["alpha-opus-4-8", "failed"],
      ["beta-5", "ok"],
    ]);
    expect(harness.warnings.map((warning: ChatWarning) => warning.code)).toContain("fallback_used");
  });

  it("falls back at once on a long Retry-After instead of sleeping through it", async () => {
    const { harness, proxy } = await setUp({
      faults: { models: { "beta-4o": { rateLimitRate: 1, retryAfterS: 120 } } },
    });
    const model = harness.model({
      model: "beta-4o",
      fallbacks: ["gamma-2.5-flash"],
      maxRetries: 3,
      baseURL: proxy.baseURL,
    });
    const reply = await model.invoke("Hi.");
    expect(modelsSent(proxy)).toEqual(["beta-4o", "gamma-2.5-flash"]);
    expect(reply.response_metadata.model).toBe("gamma-2.5-flash");
  });

  it("retries a short Retry-After on the same model before falling back", async () => {
    const { harness, proxy } = await setUp({
      faults: { models: { "beta-4o-mini": { rateLimitRate: 1, retryAfterS: 0.01 } } },
    });
    const model = harness.model({
      model: "beta-4o-mini",
      fallbacks: ["beta-4o"],
      maxRetries: 2,
      baseURL: proxy.baseURL,
    });
    await model.invoke("Hi.");
    expect(modelsSent(proxy)).toEqual(["beta-4o-mini", "beta-4o-mini", "beta-4o-mini", "beta-4o"]);
  });

  it("falls back when a non-streamed reply's connection is cut", async () => {
    const { harness, proxy } = await setUp({ faults: { models: { "alpha-haiku-4-5-20251001": { dropRate: 1 } } } });
    const model = harness.model({
      model: "alpha-haiku-4-5-20251001",
      fallbacks: ["beta-4o-mini"],
      maxRetries: 1,
      baseURL: proxy.baseURL,
    });
    const reply = await model.invoke("Hi.");
    expect(modelsSent(proxy)).toEqual(["alpha-haiku-4-5-20251001", "alpha-haiku-4-5-20251001", "beta-4o-mini"]);
    expect(reply.response_metadata.fallback_from).toEqual(["alpha-haiku-4-5-20251001"]);
  });

  it("falls back when a stream is cut before its first token", async () => {
    const seed = seedWhere("alpha-haiku-4-5-20251001", (cutAt) => cutAt < 0.02);
    const { harness, proxy } = await setUp({
      faults: { seed, models: { "alpha-haiku-4-5-20251001": { dropRate: 1 } } },
    });
    const model = harness.model({
      model: "alpha-haiku-4-5-20251001",
      fallbacks: ["beta-4o-mini"],
      maxRetries: 0,
      baseURL: proxy.baseURL,
    });
    let text = "";
    let last: AIMessageChunk | undefined;
    for await (const chunk of await model.stream("Hi.")) {
      text += chunk.text;
      last = chunk;
    }
    expect(modelsSent(proxy)).toEqual(["alpha-haiku-4-5-20251001", "beta-4o-mini"]);
    expect(text.length).toBeGreaterThan(0);
    expect(last?.response_metadata).toMatchObject({
      model: "beta-4o-mini",
      fallback_from: ["alpha-haiku-4-5-20251001"],
    });
  });

  it("does not fall back once output was shown: a mid-stream cut is a StreamError carrying the partial output", async () => {
    const seed = seedWhere("alpha-haiku-4-5-20251001", (cutAt) => cutAt > 0.6);
    const { harness, proxy } = await setUp({
      faults: { seed, models: { "alpha-haiku-4-5-20251001": { dropRate: 1 } } },
    });
    const model = harness.model({
      model: "alpha-haiku-4-5-20251001",
      fallbacks: ["beta-4o-mini"],
      maxRetries: 0,
      baseURL: proxy.baseURL,
    });
    let text = "";
    let failure: unknown;
    try {
      for await (const chunk of await model.stream("Write a long story about a fox who learns to sail across the sea."))
        text += chunk.text;
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StreamError);
    const partial = (failure as StreamError).partial as PartialReply;
    expect(text.length).toBeGreaterThan(0);
    expect(partial.content).toBe(text);
    expect((failure as StreamError).cause).toBeInstanceOf(UpstreamError);
    expect(modelsSent(proxy)).toEqual(["alpha-haiku-4-5-20251001"]);
  });

  it("never falls back on a bad key", async () => {
    const { harness, proxy } = await setUp({ keys: [{ key: "sk-test-main" }] });
    const model = harness.model({
      model: "beta-4o",
      fallbacks: ["gamma-2.5-flash"],
      apiKey: "sk-wrong-key",
      baseURL: proxy.baseURL,
    });
    await expect(model.invoke("Hi.")).rejects.toBeInstanceOf(AuthenticationError);
    expect(modelsSent(proxy)).toEqual(["beta-4o"]);
  });

  it("reports empty output from a reasoning model as EmptyOutputError that says to raise the budget", async () => {
    const { harness } = await setUp({});
    const model = harness.model({ model: "beta-5-mini", maxTokens: 16 });
    const failure = await model.invoke("Explain why the sky is blue in detail.").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EmptyOutputError);
    expect((failure as Error).message).toMatch(/Raise maxTokens/);
  });

  it("reports an empty streamed reply the same way, before anything was shown", async () => {
    const { harness } = await setUp({});
    const model = harness.model({ model: "beta-5-mini", maxTokens: 16 });
    const failure = await (async () => {
      for await (const _chunk of await model.stream("Explain why the sky is blue in detail.")) void _chunk;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EmptyOutputError);
  });

  it("moves to the next model when a reasoning model comes back empty", async () => {
    const { harness, proxy } = await setUp({});
    const model = harness.model({
      model: "beta-5-mini",
      maxTokens: 16,
      fallbacks: ["gamma-2.5-flash"],
      baseURL: proxy.baseURL,
    });
    const reply = await model.invoke("Explain why the sky is blue in detail.");
    expect(modelsSent(proxy)).toEqual(["beta-5-mini", "gamma-2.5-flash"]);
    expect(proxy.requests[1]?.body).toMatchObject({ max_tokens: 16 });
    expect(reply.response_metadata.fallback_from).toEqual(["beta-5-mini"]);
  });

  it("fails with TimeoutError when the whole call exceeds timeoutMs", async () => {
    const { harness } = await setUp({ faults: { models: { "beta-4o": { latencyMs: 2000 } } } });
    const model = harness.model({ model: "beta-4o", timeoutMs: 150 });
    await expect(model.invoke("Hi.")).rejects.toBeInstanceOf(TimeoutError);
  });

  it("falls back when a stream stalls before its first token (chunk timeout)", async () => {
    const { harness, proxy } = await setUp({ faults: { models: { "beta-4o": { chunkDelayMs: 1000 } } } });
    const model = harness.model({
      model: "beta-4o",
      fallbacks: ["beta-4o-mini"],
      maxRetries: 0,
      chunkTimeoutMs: 100,
      baseURL: proxy.baseURL,
    });
    let text = "";
    for await (const chunk of await model.stream("Hi.")) text += chunk.text;
    expect(text.length).toBeGreaterThan(0);
    expect(modelsSent(proxy)).toEqual(["beta-4o", "beta-4o-mini"]);
  });
});

describe("concurrency", () => {
  it("holds the scheduler slot until a stream has ended", async () => {
    const { harness } = await setUp({});
    const scheduler = new Scheduler({ concurrency: 1 });
    const model = harness.model({ model: "beta-4o-mini", scheduler });
    const stream = await model.stream("Tell me a long story about a river.");
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    let second = false;
    const other = model.invoke("Hi.").then(() => (second = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second).toBe(false);
    expect(scheduler.waiting).toBe(1);
    while ((await iterator.next()).done !== true);
    await other;
    expect(second).toBe(true);
  });

  it("frees the slot and the connection when the consumer stops reading early", async () => {
    const { harness } = await setUp({});
    const scheduler = new Scheduler({ concurrency: 1 });
    const model = harness.model({ model: "beta-4o-mini", scheduler });
    for await (const chunk of await model.stream("Tell me a long story about a river.")) {
      if (chunk.text) break;
    }
    expect(scheduler.running).toBe(0);
    // With one slot, this would wait forever if the stream had kept its slot.
    await expect(model.invoke("Hi.")).resolves.toBeDefined();
  });

  it("stops a stream when its signal aborts mid-way, with AbortedError", async () => {
    const { harness } = await setUp({ faults: { models: { "beta-4o-mini": { chunkDelayMs: 20 } } } });
    const scheduler = new Scheduler({ concurrency: 1 });
    const model = harness.model({ model: "beta-4o-mini", scheduler });
    const controller = new AbortController();
    let text = "";
    const failure = await (async () => {
      for await (const chunk of await model.stream("Tell me a long story about a river.", {
        signal: controller.signal,
      })) {
        text += chunk.text;
        if (text) controller.abort();
      }
    })().catch((error: unknown) => error);
    expect(String((failure as Error).name)).toMatch(/Abort/);
    expect(scheduler.running).toBe(0);
  });
});
