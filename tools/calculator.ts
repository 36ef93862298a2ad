import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { evaluateExpression, formatNumber } from "./support/evaluate-expression.js";

/** Input of the calculator tool. */
export const calculatorSchema = z.object({
  expression: z
    .string()
    .min(1)
    .max(2000)
    .describe('An arithmetic expression, e.g. "(12.5 * 4 + 3^2) / sqrt(16)" or "round(19.99 * 1.13, 2)".'),
});

/** Creates the `calculator` tool: exact arithmetic through a real parser, never eval. */
export function createCalculatorTool() {
  return tool(async ({ expression }) => formatNumber(evaluateExpression(expression)), {
    name: "calculator",
    description:
      "Evaluates an arithmetic expression and returns the number. Use it for any arithmetic instead of " +
      "computing in your head. Supports numbers (1, 2.5, 1e-3), + - * / % and ^ (power; ** also works), " +
      "parentheses, unary minus, the constants pi and e, and the functions sqrt, abs, round(x, digits?), " +
      "floor, ceil, trunc, min, max, pow(x, y), exp, log(x) (natural) or log(x, base), ln, log10, log2, " +
      "sin, cos, tan (radians). No variables. Errors name the column where the expression went wrong.",
    schema: calculatorSchema,
  });
}
