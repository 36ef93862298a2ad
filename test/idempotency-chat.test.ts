import { HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { modelIdempotencyKey } from "../src/chat/model-idempotency-key.js";
import { startHarness, type Harness } from "./chat-harness.js";
import { billedOf, recordingDispatcher, startCuttingProxy, type CuttingProxy } from "./idempotency-harness.js";

const MODEL = "alpha-sonnet-4-6";
let harness: Harness;
let proxy: CuttingProxy;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  harness = await startHarness({ faults: { models: { "alpha-opus-4-8": { errorRate: 1, status: 503 } } } });
  proxy = await startCuttingProxy(harness.gateway);
});

afterAll(async () => {
  for (const close of closers) await close();
  await proxy.close();
  await harness.close();
});

const spent = () => harness.gateway.stats().keys[0]!.spentYuan;
const billedCount = () => billedOf(harness.gateway).length;
const key = (name: string) => ({ idempotencyKey: name });

function recorded() {
  const recorder = recordingDispatcher();
  closers.push(recorder.close);
  return { ...recorder, keys: () => recorder.sent.map((headers) => headers["idempotency-key"]) };
}

describe("ChatGateway idempotencyKey", () => {
  it("retries a connection dropped after billing with the same key: billed once, ledger total == gateway bill", async () => {
    const ledger = new CostLedger();
    const model = harness.model({ model: MODEL, baseURL: proxy.baseURL, maxTokens: 60, maxRetries: 2, ledger });
    const [billedBefore, spentBefore] = [billedCount(), spent()];
    proxy.cutNext(1);
    const message = await model.invoke([new HumanMessage("Name a lantern colour.")], { idempotencyKey: "chat-drop-1" });
    expect(message.text.length).toBeGreaterThan(0);
    expect(billedCount() - billedBefore).toBe(1);
    expect(ledger.entries().map((entry) => [entry.status, entry.replayed ?? false])).toEqual([
      ["failed", false],
      ["ok", true],
    ]);
    expect(ledger.summary().totalYuan).toBeGreaterThan(0);
    expect(ledger.summary().totalYuan).toBeCloseTo(spent() - spentBefore, 6);
  });

  it("retries a stream cut after billing (before any output) with the same key: billed once", async () => {
    const ledger = new CostLedger();
    const model = harness.model({ model: MODEL, baseURL: proxy.baseURL, maxTokens: 60, maxRetries: 2, ledger });
    const [billedBefore, spentBefore] = [billedCount(), spent()];
    proxy.cutNext(1, { keepHead: true });
    let text = "";
    for await (const chunk of await model.stream("Describe a harbour.", key("chat-stream-1"))) text += chunk.text;
    expect(text.length).toBeGreaterThan(0);
    expect(billedCount() - billedBefore).toBe(1);
    expect(ledger.summary().replayed).toBe(1);
    expect(ledger.summary().totalYuan).toBeCloseTo(spent() - spentBefore, 6);
  });

  it("without a key, the same drop is billed twice and the ledger cannot see the lost bill", async () => {
    const ledger = new CostLedger();
    const model = harness.model({ model: MODEL, baseURL: proxy.baseURL, maxTokens: 60, maxRetries: 2, ledger });
    const [billedBefore, spentBefore] = [billedCount(), spent()];
    proxy.cutNext(1);
    await model.invoke("Name a lantern shape.");
    expect(billedCount() - billedBefore).toBe(2);
    expect(ledger.summary().totalYuan).toBeLessThan(spent() - spentBefore);
  });

  it("sends one key per model: retries of a model share it, a fallback model gets its own", async () => {
    const recorder = recorded();
    const model = harness.model({
      model: "alpha-opus-4-8",
      fallbacks: ["beta-4o-mini"],
      maxRetries: 1,
      dispatcher: recorder.dispatcher,
      maxTokens: 40,
    });
    await model.invoke("Hello.", key("chat-fallback-1"));
    expect(recorder.keys()).toEqual([
      "chat-fallback-1:alpha-opus-4-8",
      "chat-fallback-1:alpha-opus-4-8",
      "chat-fallback-1:beta-4o-mini",
    ]);
  });

  it("passes the key through withConfig, bindTools and withStructuredOutput", async () => {
    const recorder = recorded();
    const model = harness.model({ model: MODEL, dispatcher: recorder.dispatcher, maxTokens: 200 });
    await model.withConfig(key("cfg-1")).invoke("Hello.");
    const weather = { name: "weather", description: "Weather for a city", schema: z.object({ city: z.string() }) };
    await model.bindTools([weather]).invoke("Weather in Lisbon?", key("tools-1"));
    const person = z.object({ name: z.string(), age: z.number() });
    const parsed = await model
      .withStructuredOutput(person, { name: "person" })
      .invoke("Make up Ada, 36.", key("structured-1"));
    expect(parsed).toMatchObject({ name: expect.any(String) });
    expect(recorder.keys()).toEqual([`cfg-1:${MODEL}`, `tools-1:${MODEL}`, `structured-1:${MODEL}`]);
  });

  it("counts a replay of a bill the ledger already holds once, and a resumed ledger's only replay in full", async () => {
    const ledger = new CostLedger();
    const model = harness.model({ model: MODEL, maxTokens: 60, ledger });
    const spentBefore = spent();
    const first = await model.invoke("Count me once.", key("ledger-1"));
    const again = await model.invoke("Count me once.", key("ledger-1"));
    expect(again.text).toBe(first.text);
    const bill = spent() - spentBefore;
    expect(ledger.summary().totalYuan).toBeCloseTo(bill, 6);
    expect(ledger.entries()[1]).toMatchObject({
      status: "ok",
      replayed: true,
      alreadyRecorded: true,
      yuan: 0,
      promptTokens: 0,
    });

    // A new process after a kill: the first entry died with the old one, the replay is all it sees.
    const resumed = new CostLedger();
    await harness.model({ model: MODEL, maxTokens: 60, ledger: resumed }).invoke("Count me once.", key("ledger-1"));
    expect(resumed.summary().totalYuan).toBeCloseTo(bill, 6);
    expect(spent() - spentBefore).toBeCloseTo(bill, 6);

    // Resumed from a journal that did keep the entry: the replay is not counted again.
    const restored = new CostLedger({ entries: ledger.entries().slice(0, 1) });
    await harness.model({ model: MODEL, maxTokens: 60, ledger: restored }).invoke("Count me once.", key("ledger-1"));
    expect(restored.summary().totalYuan).toBeCloseTo(bill, 6);
  });

  it("refuses a malformed key before anything is sent or reserved", async () => {
    const ledger = new CostLedger();
    const model = harness.model({ model: MODEL, ledger });
    await expect(model.invoke("Hi.", key("bad key"))).rejects.toMatchObject({ code: "invalid_parameter" });
    expect(ledger.entries()).toHaveLength(0);
  });

  it("keeps per-model keys deterministic and within the header's 255 characters", () => {
    expect(modelIdempotencyKey("run:step", "beta-4o")).toBe("run:step:beta-4o");
    const long = modelIdempotencyKey("k".repeat(250), "beta-4o");
    expect(long.length).toBeLessThanOrEqual(255);
    expect(modelIdempotencyKey("k".repeat(250), "beta-4o")).toBe(long);
    expect(modelIdempotencyKey("k".repeat(250), "beta-4o-mini")).not.toBe(long);
  });
});
