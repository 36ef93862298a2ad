import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getModel } from "../src/catalog/models.js";
import { countPromptTokens, promptTokensAtMost } from "../src/gateway/prompt-tokens.js";
import { planChain, planRequest, promptSize, type ChatInput } from "../src/chat/plan-request.js";
import type { Message } from "../src/gateway/wire.js";

function input(fields: Partial<ChatInput>): ChatInput {
  return { messages: [{ role: "user", content: "Hello." }], settings: {}, stream: false, ...fields };
}

const text = fc.string({ unit: "binary", maxLength: 400 });
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({
    role: fc.constantFrom("system", "user", "developer") as fc.Arbitrary<Message["role"]>,
    content: text,
    name: fc.option(text, { nil: undefined }),
  }),
  fc.record({
    role: fc.constant("user" as const),
    content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 3 }),
  }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.option(text, { nil: null }),
    tool_calls: fc.array(
      fc.record({
        id: text,
        type: fc.constant("function" as const),
        function: fc.record({ name: text, arguments: text }),
      }),
      { maxLength: 2 },
    ),
  }),
);

describe("prompt size", () => {
  it("bounds the exact token count from above for any text, so the window check can skip counting", () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 4 }),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (messages, format) => {
          const request = {
            messages,
            ...(format === undefined ? {} : { response_format: { type: "json_schema", schema: format } }),
          };
          expect(countPromptTokens(request)).toBeLessThanOrEqual(promptTokensAtMost(request));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reports the exact count on a plan, the same for every model of the chain", () => {
    const messages: Message[] = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "Summarise unit testing in one line, please." },
    ];
    const { plans } = planChain(
      [getModel("alpha-sonnet-4-6"), getModel("beta-4o-mini"), getModel("gamma-2.5-flash")],
      input({ messages }),
    );
    const exact = countPromptTokens({ messages });
    expect(plans.map((plan) => plan.promptTokens())).toEqual([exact, exact, exact]);
    expect(promptSize({ messages }).exact()).toBe(exact);
  });

  it("counts exactly when the bound does not fit: a prompt of more bytes than the window still plans when its tokens fit", () => {
    // 300,000 bytes but about 60,000 tokens: over alpha-sonnet-4-6's 200K window by the bound only.
    const messages: Message[] = [{ role: "user", content: "information ".repeat(25_000) }];
    expect(promptTokensAtMost({ messages })).toBeGreaterThan(200_000);
    const plan = planRequest(getModel("alpha-sonnet-4-6"), input({ messages }));
    expect(plan.promptTokens()).toBe(countPromptTokens({ messages }));
    expect(plan.promptTokens()).toBeLessThan(200_000);
  });
});
