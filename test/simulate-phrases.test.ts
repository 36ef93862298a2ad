// The simulator's phrase readers: the subject a prompt is about, and arithmetic built from its numbers.
import { describe, expect, it } from "vitest";
import { expressionFromNumbers } from "../src/server/simulate/numbers-expression.js";
import { findSubject } from "../src/server/simulate/subject-phrase.js";
import { calculatorTool, chat, user } from "./simulate-helpers.js";

describe("findSubject", () => {
  it.each([
    ["Three taglines of at most eight words for a solar lantern.", "solar lantern", "a solar lantern"],
    ["One enticing line for Travel kettle, 0.8 l (SKU KT-010).", "travel kettle", "a travel kettle"],
    ["A poster and a jingle for Lumo, a solar lantern", "Lumo", "Lumo"],
    ["Listen to this voice memo. Give it a short title.", "voice memo", "the voice memo"],
  ])("reads %j as about %j", (prompt, bare, indefinite) => {
    const subject = findSubject(prompt);
    expect(subject?.bare).toBe(bare);
    expect(subject?.indefinite === indefinite || subject?.definite === indefinite).toBe(true);
  });
});

describe("expressionFromNumbers", () => {
  it.each([
    [
      "We launch at 30 yuan; one unit costs 12.5 yuan. The gross margin in percent?",
      "round((30 - 12.5) / 30 * 100, 1)",
    ],
    ["What is the total of 39, 71 and 26 units?", "39 + 71 + 26"],
    ["The average of 4 and 8", "(4 + 8) / 2"],
  ])("builds arithmetic from %j", (prompt, expression) => {
    const numbers = [...prompt.matchAll(/\d+(?:\.\d+)?/g)].map((match) => Number(match[0]));
    expect(expressionFromNumbers(prompt, numbers)).toBe(expression);
  });

  it("gives the calculator an expression from the prompt's numbers when the prompt writes none", async () => {
    const reply = await chat(
      "alpha-sonnet-4-6",
      [user("We sell at 30 yuan and one unit costs 12.5 yuan. Use the calculator for the gross margin in percent.")],
      {
        tools: [calculatorTool],
      },
    );
    expect(JSON.parse(reply.toolCalls[0]!.arguments)).toEqual({ expression: "round((30 - 12.5) / 30 * 100, 1)" });
  });
});
