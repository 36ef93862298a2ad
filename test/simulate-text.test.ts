import { describe, expect, it } from "vitest";
import { countTextTokens } from "../src/catalog/tokens.js";
import { chat, user, visibleTokens } from "./simulate-helpers.js";

describe("simulated text replies", () => {
  it("answers a simple arithmetic question", async () => {
    const reply = await chat("beta-4o", [user("What is 12 * 7?")]);
    expect(reply.content).toContain("84");
    expect(reply.finishReason).toBe("stop");
  });

  it.each([
    ["What is 3 plus 4 times 2?", "11"],
    ["Calculate (10 - 4) / 3", "2"],
    ["what's 2^10", "1024"],
    ["What is 15% of 80?", "12"],
  ])("computes %s", async (question, answer) => {
    const reply = await chat("alpha-sonnet-4-6", [user(question)]);
    expect(reply.content).toMatch(new RegExp(`\\b${answer}\\b`));
  });

  it("mentions the key words of the prompt, so different prompts get different replies", async () => {
    const rome = await chat("beta-4o", [user("Tell me about the aqueducts of Rome.")]);
    const tea = await chat("beta-4o", [user("Tell me about green tea and its caffeine.")]);
    expect(rome.content).toMatch(/Rome|aqueducts/);
    expect(tea.content).toMatch(/tea|caffeine/);
    expect(rome.content).not.toBe(tea.content);
  });

  it("gives the same reply for the same request and seed, and may vary with the seed", async () => {
    const messages = [user("Share some thoughts on lighthouses and fog.")];
    const first = await chat("gamma-2.5-flash", messages, {}, { seed: 7 });
    const again = await chat("gamma-2.5-flash", messages, {}, { seed: 7 });
    const others = await Promise.all([8, 9, 10, 11].map((seed) => chat("gamma-2.5-flash", messages, {}, { seed })));
    expect(again).toEqual(first);
    expect(others.some((reply) => reply.content !== first.content)).toBe(true);
  });

  it("keeps ordinary replies short: 30 to 120 tokens", async () => {
    for (const prompt of [
      "Why do cats purr?",
      "Ideas for a rainy weekend in Lisbon",
      "How do vaccines train the immune system?",
    ]) {
      const tokens = visibleTokens(await chat("beta-4o-mini", [user(prompt)]));
      expect(tokens).toBeGreaterThanOrEqual(20);
      expect(tokens).toBeLessThanOrEqual(120);
    }
  });

  it("writes about as many words as asked for", async () => {
    const reply = await chat("alpha-sonnet-4-6", [user("Write 500 words about solar lanterns.")]);
    expect(reply.content.split(/\s+/).filter(Boolean)).toHaveLength(500);
    expect(reply.content).toContain("solar lanterns");
    expect(reply.completionTokens).toBe(countTextTokens(reply.content));
  });

  it("writes a numbered list of the requested length", async () => {
    const reply = await chat("beta-4o", [user("Give me five tips for learning the cello")]);
    expect(reply.content.split("\n").filter((line) => /^\d+\. /.test(line))).toHaveLength(5);
  });

  it("repeats a quoted phrase exactly when asked to", async () => {
    const reply = await chat("beta-4o", [user('Reply with exactly "pong 42" and nothing else.')]);
    expect(reply.content).toBe("pong 42");
  });

  it("remembers what the user said earlier in the conversation", async () => {
    const reply = await chat("alpha-haiku-4-5-20251001", [
      user("Hi, my name is Ada."),
      { role: "assistant", content: "Hello Ada!" },
      user("What is my name?"),
    ]);
    expect(reply.content).toBe("Your name is Ada.");
  });

  it("summarises text by quoting its opening and its most central sentence", async () => {
    const text =
      "Solar lanterns store daylight in a small battery. They are cheap to run and safe indoors. " +
      "Many families use solar lanterns instead of kerosene lamps, which cut smoke and fire risk. The weather was nice.";
    const reply = await chat("beta-4o", [user(`Summarize this: ${text}`)]);
    expect(reply.content).toContain("Solar lanterns store daylight in a small battery.");
    expect(reply.content).toContain("kerosene");
    expect(reply.content).not.toContain("The weather was nice");
  });

  it("stops before the first stop sequence with finish_reason stop", async () => {
    const full = await chat("beta-4o", [user('Say "alpha beta gamma delta"')]);
    const cut = await chat("beta-4o", [user('Say "alpha beta gamma delta"')], { stop: ["delta", " gamma"] });
    expect(full.content).toBe("alpha beta gamma delta");
    expect(cut.content).toBe("alpha beta");
    expect(cut.finishReason).toBe("stop");
  });

  it("honours max_tokens: cuts the reply at the limit with finish_reason length", async () => {
    const reply = await chat("beta-4o", [user("Write 300 words about the sea.")], { max_tokens: 25 });
    expect(reply.finishReason).toBe("length");
    expect(reply.completionTokens).toBeLessThanOrEqual(25);
    expect(reply.completionTokens).toBeGreaterThanOrEqual(24);
    expect(reply.completionTokens).toBe(countTextTokens(reply.content));
  });

  it("finishes with stop when the reply fits the limit", async () => {
    const reply = await chat("beta-4o", [user("What is 2 + 2?")], { max_tokens: 50 });
    expect(reply.finishReason).toBe("stop");
    expect(reply.reasoningTokens).toBe(0);
  });
});
