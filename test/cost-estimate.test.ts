import { describe, expect, it } from "vitest";
import { roundYuan, tokenCost } from "../src/catalog/prices.js";
import { AUDIO_TOKENS_PER_MINUTE } from "../src/catalog/tokens.js";
import { countPromptTokens } from "../src/gateway/prompt-tokens.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { FALLBACK_OUTPUT_TOKENS } from "../src/cost/estimate-operation.js";
import type { ChatRequest } from "../src/gateway/wire.js";

const ledger = new CostLedger();

function request(model: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model, messages: [{ role: "user", content: "Name three rivers." }], ...extra };
}

/** A silent PCM WAV of the given length (8 kHz, mono, 8-bit). */
function silentWav(seconds: number): Buffer {
  const rate = 8000;
  const data = Buffer.alloc(rate * seconds, 128);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe("estimate", () => {
  it("bounds a chat call by its prompt and its output limit at the published prices", () => {
    const chat = request("alpha-sonnet-4-6", { max_tokens: 300 });
    const estimate = ledger.estimate({ kind: "chat", request: chat });
    const prompt = countPromptTokens(chat);
    expect(estimate).toMatchObject({ promptTokens: prompt, maxOutputTokens: 300, upperBound: true, assumptions: [] });
    expect(estimate.yuan).toBe(roundYuan(tokenCost(prompt, 0.032) + tokenCost(300, 0.1598)));
  });

  it("serialises whole, the prompt counted, though it is counted only when read", () => {
    const chat = request("alpha-sonnet-4-6", { max_tokens: 300 });
    const estimate = ledger.estimate({ kind: "chat", request: chat });
    const json = JSON.parse(JSON.stringify(estimate)) as Record<string, unknown>;
    expect(json).toEqual({
      kind: "chat",
      model: "alpha-sonnet-4-6",
      yuan: estimate.yuan,
      priced: true,
      priceSource: estimate.priceSource,
      promptTokens: countPromptTokens(chat),
      maxOutputTokens: 300,
      images: 0,
      upperBound: true,
      assumptions: [],
    });
    // An unpriced call with an output limit never needs the count; reading it still gives it.
    const unpriced = ledger.estimate({ kind: "chat", request: request("beta-4o-mini", { max_tokens: 10 }) });
    expect(unpriced.priced).toBe(false);
    expect(unpriced.promptTokens).toBe(countPromptTokens(request("beta-4o-mini", { max_tokens: 10 })));
  });

  it("takes max_completion_tokens over max_tokens, as the gateway does", () => {
    const chat = request("alpha-sonnet-4-6", { max_tokens: 300, max_completion_tokens: 50 });
    expect(ledger.estimate({ kind: "chat", request: chat }).maxOutputTokens).toBe(50);
  });

  it("bounds every choice when a request asks for several", () => {
    const chat = request("alpha-sonnet-4-6", { max_tokens: 100, n: 3 });
    expect(ledger.estimate({ kind: "chat", request: chat }).maxOutputTokens).toBe(300);
  });

  it("reserves the rest of the context window when the request sets no limit, and says so", () => {
    const chat = request("alpha-sonnet-4-6");
    const estimate = ledger.estimate({ kind: "chat", request: chat });
    expect(estimate.maxOutputTokens).toBe(200_000 - countPromptTokens(chat));
    expect(estimate.upperBound).toBe(true);
    expect(estimate.assumptions.join()).toMatch(/context window; set maxTokens/);
  });

  it("uses defaultOutputTokens as a stated assumption, not a hard bound", () => {
    const estimate = new CostLedger({ defaultOutputTokens: 1000 }).estimate({
      kind: "chat",
      request: request("alpha-sonnet-4-6"),
    });
    expect(estimate.maxOutputTokens).toBe(1000);
    expect(estimate.upperBound).toBe(false);
    expect(estimate.assumptions.join()).toMatch(/defaultOutputTokens/);
  });

  it("falls back to a stated output assumption for a model without a published context window", () => {
    const priced = new CostLedger({ prices: { chat: { "beta-4o": { input: 0.01, output: 0.02 } } } });
    const estimate = priced.estimate({ kind: "chat", request: request("beta-4o") });
    expect(estimate.maxOutputTokens).toBe(FALLBACK_OUTPUT_TOKENS);
    expect(estimate.upperBound).toBe(false);
  });

  it("counts audio in the prompt at about 1900 tokens a minute", () => {
    const priced = new CostLedger({ prices: { chat: { "gamma-2.5-flash": { input: 0.001, output: 0.002 } } } });
    const withAudio = request("gamma-2.5-flash", {
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Transcribe." },
            { type: "input_audio", input_audio: { data: silentWav(60).toString("base64"), format: "wav" } },
          ],
        },
      ],
    });
    const textOnly = request("gamma-2.5-flash", {
      max_tokens: 10,
      messages: [{ role: "user", content: [{ type: "text", text: "Transcribe." }] }],
    });
    const audio = priced.estimate({ kind: "chat", request: withAudio });
    const text = priced.estimate({ kind: "chat", request: textOnly });
    expect(audio.promptTokens - text.promptTokens).toBe(AUDIO_TOKENS_PER_MINUTE);
    expect(audio.yuan! - text.yuan!).toBeCloseTo(tokenCost(AUDIO_TOKENS_PER_MINUTE, 0.001), 8);
  });

  it("prices image generation per image, per choice", () => {
    const one = ledger.estimate({ kind: "chat", request: request("gamma-2.5-flash-image") });
    const two = ledger.estimate({ kind: "chat", request: request("gamma-2.5-flash-image", { n: 2 }) });
    expect(one).toMatchObject({ kind: "image", images: 1, yuan: 0.42 });
    expect(two.yuan).toBe(0.84);
  });

  it("prices music per call", () => {
    expect(ledger.estimate({ kind: "music", operation: "generate" }).yuan).toBe(2);
    expect(ledger.estimate({ kind: "music", operation: "concatenation" }).yuan).toBe(0.5);
  });

  it("reports an unpriced model as unpriced with its token bounds", () => {
    const estimate = ledger.estimate({ kind: "chat", request: request("beta-5", { max_completion_tokens: 500 }) });
    expect(estimate).toMatchObject({ yuan: undefined, priced: false, priceSource: "unpriced", maxOutputTokens: 500 });
    expect(estimate.promptTokens).toBeGreaterThan(0);
  });

  it("adds up a plan and lists what it could not price", () => {
    const plan = ledger.estimatePlan([
      { kind: "chat", request: request("alpha-sonnet-4-6", { max_tokens: 100 }) },
      { kind: "chat", request: request("gamma-2.5-flash-image") },
      { kind: "music", operation: "generate" },
      { kind: "chat", request: request("beta-5", { max_completion_tokens: 500 }) },
      { kind: "chat", request: request("beta-5", { max_completion_tokens: 700 }) },
    ]);
    const assumed = new CostLedger({ defaultOutputTokens: 500 }).estimatePlan([
      { kind: "chat", request: request("alpha-sonnet-4-6") },
    ]);
    expect(assumed.upperBound).toBe(false);
    const sonnet = plan.operations[0]!.yuan!;
    expect(plan.yuan).toBe(roundYuan(sonnet + 0.42 + 2));
    expect(plan.unpriced["beta-5"]).toMatchObject({ calls: 2, maxOutputTokens: 1200 });
    expect(plan.upperBound).toBe(true);
  });
});
