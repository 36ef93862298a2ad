import { describe, expect, it } from "vitest";
import { catalog } from "../src/catalog/index.js";
import { PUBLISHED_PRICES, mergePrices, tokenCost } from "../src/catalog/prices.js";
import { audioTokens, countTextTokens, imageTokens, videoTokens } from "../src/catalog/tokens.js";
import { countPromptTokens } from "../src/gateway/prompt-tokens.js";
import { UnknownModelError } from "../src/errors.js";

describe("catalog", () => {
  it("lists every model of the spec's table", () => {
    expect(catalog.listModels()).toHaveLength(19);
  });

  it.each([
    ["beta-5", "max_completion_tokens", true, false],
    ["beta-5.4-nano", "max_completion_tokens", true, false],
    ["beta-4o", "max_tokens", false, false],
    ["alpha-opus-4-8", "max_tokens", false, true],
    ["gamma-2.5-pro", "max_tokens", false, false],
  ] as const)("keeps %s's parameter rules as data", (id, field, rejectsMaxTokens, rejectsSampling) => {
    const { rules } = catalog.getModel(id);
    expect(rules.outputLimitField).toBe(field);
    expect(rules.rejectsMaxTokens).toBe(rejectsMaxTokens);
    expect(rules.rejectsSampling).toBe(rejectsSampling);
  });

  it("gives gamma-2.5-pro a 4096-token minimum output budget", () => {
    expect(catalog.getModel("gamma-2.5-pro").rules.minOutputTokens).toBe(4096);
  });

  it("allows audio and video only on gamma-2.5 text models", () => {
    const audio = catalog
      .listModels()
      .filter((model) => model.capabilities.audio)
      .map((model) => model.id);
    expect(audio).toEqual(["gamma-2.5-pro", "gamma-2.5-flash", "gamma-2.5-flash-lite"]);
  });

  it("finds a model by its dated version", () => {
    expect(catalog.findModel("beta-4o-2024-11-20")?.id).toBe("beta-4o");
  });

  it("refuses an unknown model and suggests the closest ids", () => {
    expect(() => catalog.getModel("beta-4")).toThrowError(UnknownModelError);
    expect(() => catalog.getModel("beta-4")).toThrowError(/Did you mean "beta-4o"/);
  });
});

describe("prices", () => {
  it("publishes only what the spec prices", () => {
    expect(Object.keys(PUBLISHED_PRICES.chat)).toEqual(["alpha-sonnet-4-6"]);
    expect(PUBLISHED_PRICES.image["gamma-2.5-flash-image"]?.yuan).toBe(0.42);
    expect(PUBLISHED_PRICES.music.generate?.yuan).toBe(2);
  });

  it("marks overrides as overrides", () => {
    const table = mergePrices({ chat: { "beta-4o": { input: 0.01, output: 0.03 } } });
    expect(table.chat["beta-4o"]).toEqual({ input: 0.01, output: 0.03, source: "override" });
    expect(table.chat["alpha-sonnet-4-6"]?.source).toBe("published");
  });

  it("prices tokens per 1K", () => {
    expect(tokenCost(1000, 0.1598)).toBe(0.1598);
    expect(tokenCost(1, 0.032)).toBe(0.000032);
  });
});

describe("tokens", () => {
  it("counts text with a real BPE tokenizer", () => {
    expect(countTextTokens("hello world")).toBe(2);
    expect(countTextTokens("")).toBe(0);
  });

  it("counts a long run of one letter in 32-character slices, the rule both sides share", () => {
    expect(countTextTokens("x".repeat(4000))).toBe(125 * countTextTokens("x".repeat(32)));
  });

  it("bills audio at 1900 tokens a minute and video at 300 a second", () => {
    expect(audioTokens(60)).toBe(1900);
    expect(audioTokens(1)).toBe(32);
    expect(videoTokens(2.5)).toBe(750);
  });

  it("counts image tiles after scaling", () => {
    expect(imageTokens(512, 512)).toBe(255);
    expect(imageTokens(4096, 4096)).toBe(85 + 170 * 4);
  });

  it("counts a request's messages and tools", () => {
    const plain = countPromptTokens({ messages: [{ role: "user", content: "hi" }] });
    const withTools = countPromptTokens({
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "add", parameters: { type: "object" } } }],
    });
    expect(plain).toBeGreaterThan(3);
    expect(withTools).toBeGreaterThan(plain);
  });
});
