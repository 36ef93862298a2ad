import { describe, expect, it } from "vitest";
import { applyModelRules } from "../src/chat/apply-model-rules.js";
import { planChain, planRequest, type ChatInput } from "../src/chat/plan-request.js";
import { getModel } from "../src/catalog/models.js";
import { ContextWindowError, ParameterError } from "../src/errors.js";
import { makeWav } from "./chat-media.js";

const input = (overrides: Partial<ChatInput> = {}): ChatInput => ({
  messages: [{ role: "user", content: "hello" }],
  settings: {},
  stream: false,
  ...overrides,
});

describe("applyModelRules", () => {
  it("sends maxTokens as max_completion_tokens to the beta-5 series, with a warning", () => {
    const { parameters, warnings } = applyModelRules(getModel("beta-5-mini"), { maxTokens: 500 });
    expect(parameters).toEqual({ max_completion_tokens: 500 });
    expect(warnings.map((warning) => warning.code)).toEqual(["max_tokens_renamed"]);
  });

  it("drops temperature and top_p for alpha-opus-4-8, with a warning", () => {
    const { parameters, warnings } = applyModelRules(getModel("alpha-opus-4-8"), {
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 50,
    });
    expect(parameters).toEqual({ max_tokens: 50 });
    expect(warnings.map((warning) => warning.code)).toEqual(["sampling_dropped"]);
  });

  it("raises gamma-2.5-pro's budget to 4096, with a warning when the caller asked for less", () => {
    const raised = applyModelRules(getModel("gamma-2.5-pro"), { maxTokens: 100 });
    expect(raised.parameters).toEqual({ max_tokens: 4096 });
    expect(raised.warnings.map((warning) => warning.code)).toEqual(["budget_raised"]);
    expect(applyModelRules(getModel("gamma-2.5-pro"), {}).parameters).toEqual({ max_tokens: 4096 });
    expect(applyModelRules(getModel("gamma-2.5-pro"), { maxTokens: 9000 }).warnings).toEqual([]);
  });

  it("keeps everything for a plain model without warnings", () => {
    const outcome = applyModelRules(getModel("beta-4o"), { temperature: 0.5, topP: 1, maxTokens: 10, stop: "END" });
    expect(outcome.parameters).toEqual({ temperature: 0.5, top_p: 1, max_tokens: 10, stop: ["END"] });
    expect(outcome.warnings).toEqual([]);
  });

  it.each([
    [{ temperature: 1.5 }, /temperature to be between 0 and 1/],
    [{ temperature: -0.1 }, /temperature/],
    [{ topP: 2 }, /topP/],
    [{ maxTokens: 0 }, /maxTokens to be a positive integer/],
  ])("refuses %j before sending", (settings, message) => {
    expect(() => applyModelRules(getModel("beta-4o"), settings)).toThrow(message);
  });
});

describe("planRequest", () => {
  it("streams an output budget above 16K even when the caller did not ask to stream", () => {
    const plan = planRequest(getModel("alpha-sonnet-4-6"), input({ settings: { maxTokens: 20_000 } }));
    expect(plan.stream).toBe(true);
    expect(plan.request).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 20_000 });
    expect(planRequest(getModel("alpha-sonnet-4-6"), input({ settings: { maxTokens: 16_000 } })).stream).toBe(false);
  });

  it("refuses audio for a model without audio input, naming the models that take it", () => {
    const audio = {
      role: "user" as const,
      content: [{ type: "input_audio" as const, input_audio: { data: makeWav(1).toString("base64"), format: "wav" } }],
    };
    expect(() => planRequest(getModel("beta-4o"), input({ messages: [audio] }))).toThrow(
      /beta-4o does not take audio input.*gamma-2\.5-pro/,
    );
    expect(planRequest(getModel("gamma-2.5-flash"), input({ messages: [audio] })).promptTokens()).toBeGreaterThan(30);
  });

  it("refuses a prompt larger than the context window before sending", () => {
    const long = "word ".repeat(210_000);
    const messages = [{ role: "user" as const, content: long }];
    expect(() => planRequest(getModel("alpha-sonnet-4-6"), input({ messages }))).toThrow(ContextWindowError);
    expect(() => planRequest(getModel("alpha-sonnet-4-6"), input({ messages }))).toThrow(/200000-token context window/);
  });

  it("moves a prompt too long for the first model to a fallback whose window fits", () => {
    const messages = [{ role: "user" as const, content: "word ".repeat(210_000) }];
    const { plans, skipped } = planChain(
      [getModel("alpha-sonnet-4-6"), getModel("beta-4o-mini"), getModel("gamma-2.5-flash")],
      input({ messages }),
    );
    // beta-4o-mini publishes no window, so it is tried; gamma fits.
    expect(plans.map((plan) => plan.model.id)).toEqual(["beta-4o-mini", "gamma-2.5-flash"]);
    expect(skipped.map((entry) => entry.model)).toEqual(["alpha-sonnet-4-6"]);
  });

  it("throws the first model's own parameter errors rather than falling back", () => {
    expect(() => planChain([getModel("beta-4o"), getModel("beta-5")], input({ settings: { temperature: 3 } }))).toThrow(
      ParameterError,
    );
  });
});
