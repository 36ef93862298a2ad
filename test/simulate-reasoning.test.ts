import { describe, expect, it } from "vitest";
import { chat, user, visibleTokens } from "./simulate-helpers.js";

const question = [user("Explain step by step why the sky is blue during the day but red at sunset.")];

describe("simulated reasoning", () => {
  it.each(["beta-5", "beta-5-mini", "beta-5.5", "beta-5.4", "beta-5.4-mini", "beta-5.4-nano"])(
    "%s spends hidden reasoning tokens and bills them as completion tokens",
    async (model) => {
      const reply = await chat(model, question, { max_completion_tokens: 8000 });
      expect(reply.reasoningTokens).toBeGreaterThanOrEqual(100);
      expect(reply.reasoningTokens).toBeLessThanOrEqual(1500);
      expect(reply.content).not.toBe("");
      expect(reply.completionTokens).toBe(reply.reasoningTokens + visibleTokens(reply));
    },
  );

  it("thinks longer about a harder prompt", async () => {
    const easy = await chat("beta-5", [user("Hi")]);
    const hard = await chat("beta-5", [
      user(`Prove step by step and compare the trade-offs: ${"why does the algorithm need this step? ".repeat(20)}`),
    ]);
    expect(hard.reasoningTokens).toBeGreaterThan(easy.reasoningTokens);
  });

  it("comes back empty with finish_reason length when reasoning eats the budget", async () => {
    const reply = await chat("beta-5", question, { max_completion_tokens: 100 });
    expect(reply.content).toBe("");
    expect(reply.finishReason).toBe("length");
    expect(reply.completionTokens).toBe(100);
    expect(reply.reasoningTokens).toBe(100);
  });

  it("gives gamma-2.5-pro an empty reply below the spec's 4096 budget and an answer at it", async () => {
    const small = await chat("gamma-2.5-pro", question, { max_tokens: 1000 });
    const enough = await chat("gamma-2.5-pro", question, { max_tokens: 4096 });
    expect(small.content).toBe("");
    expect(small.finishReason).toBe("length");
    expect(enough.content).not.toBe("");
    expect(enough.finishReason).toBe("stop");
    expect(enough.reasoningTokens).toBeGreaterThanOrEqual(1200);
  });

  it("truncates the visible answer when reasoning leaves only part of the budget", async () => {
    const full = await chat("beta-5", [user("Write 200 words about tides.")], { max_completion_tokens: 20_000 });
    const limit = full.reasoningTokens + 40;
    const cut = await chat("beta-5", [user("Write 200 words about tides.")], { max_completion_tokens: limit });
    expect(cut.finishReason).toBe("length");
    expect(cut.content.length).toBeGreaterThan(0);
    expect(cut.completionTokens).toBeLessThanOrEqual(limit);
  });

  it("spends no reasoning tokens on models that do not reason", async () => {
    for (const model of ["beta-4o", "alpha-opus-4-8", "gamma-2.5-flash"]) {
      expect((await chat(model, question)).reasoningTokens).toBe(0);
    }
  });

  it("reasons before tool calls too, within the same budget", async () => {
    const reply = await chat("beta-5", [user("What is 12 * 7?")], {
      tools: [
        {
          type: "function",
          function: {
            name: "calculator",
            parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
          },
        },
      ],
    });
    expect(reply.finishReason).toBe("tool_calls");
    expect(reply.reasoningTokens).toBeGreaterThan(0);
    expect(reply.completionTokens).toBeGreaterThan(reply.reasoningTokens);
  });
});
