import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolInputError } from "../src/errors.js";
import { createCalculatorTool } from "../tools/calculator.js";
import { evaluateExpression } from "../tools/support/evaluate-expression.js";

const calculator = createCalculatorTool();

function failure(expression: string): ToolInputError {
  try {
    evaluateExpression(expression);
  } catch (error) {
    if (error instanceof ToolInputError) return error;
    throw error;
  }
  throw new Error(`${expression} did not fail`);
}

describe("calculator tool", () => {
  it.each([
    ["1 + 2 * 3", "7"],
    ["(1 + 2) * 3", "9"],
    ["10 - 4 - 3", "3"],
    ["2 ^ 3 ^ 2", "512"],
    ["2 ** 10", "1024"],
    ["-2 ^ 2", "-4"],
    ["(-2) ^ 2", "4"],
    ["2 ^ -1", "0.5"],
    ["--3", "3"],
    ["+4", "4"],
    ["7 % 3", "1"],
    ["-7 % 3", "-1"],
    ["1 / 4", "0.25"],
    [".5 + 1.", "1.5"],
    ["1.5e3 + 2E-2", "1500.02"],
    ["0.1 + 0.2", "0.3"],
    ["sqrt(16) + abs(-3)", "7"],
    ["round(2.5) + round(-2.5)", "0"],
    ["round(1.005, 2)", "1.01"],
    ["floor(-1.5) + ceil(1.2)", "0"],
    ["min(4, 2, 8) * max(1, 9)", "18"],
    ["pow(2, 8)", "256"],
    ["log(e)", "1"],
    ["log(8, 2)", "3"],
    ["exp(0)", "1"],
    ["ln(1) + log10(1000) + log2(8)", "6"],
    ["2 * pi", "6.28318530717959"],
    ["PI / Pi", "1"],
    ["3 × 4 ÷ 2 − 1", "5"],
    ["2 ^ 53", "9007199254740992"],
  ])("evaluates %s to %s", async (expression, expected) => {
    expect(await calculator.invoke({ expression })).toBe(expected);
  });

  it.each([
    ["1 / 0", "division_by_zero", 3],
    ["5 % (2 - 2)", "division_by_zero", 3],
    ["(1 + 2", "invalid_expression", 7],
    ["1 + 2)", "invalid_expression", 6],
    ["3 4", "invalid_expression", 3],
    ["2 * * 3", "invalid_expression", 5],
    ["1 +", "invalid_expression", 4],
    ["foo(2)", "invalid_expression", 1],
    ["x + 1", "invalid_expression", 1],
    ["sqrt(-1)", "invalid_expression", 1],
    ["log(0, 10) + 1", "invalid_expression", 1],
    ["log(8, 1)", "invalid_expression", 1],
    ["round(1.5, 0.5)", "invalid_expression", 1],
    ["sqrt(1, 2)", "invalid_expression", 1],
    ["pow(2)", "invalid_expression", 1],
    ["sqrt 4", "invalid_expression", 6],
    ["10 ^ 400", "invalid_expression", 4],
    ["1e999", "invalid_expression", 1],
    ["2 $ 3", "invalid_expression", 3],
    ["   ", "invalid_expression", 4],
    ["eval(1)", "invalid_expression", 1],
  ])("refuses %s with code %s at column %i", (expression, code, column) => {
    const error = failure(expression);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(new RegExp(`^At column ${column}: `));
    // The message repeats the expression with a caret under the column, so the model sees where.
    expect(error.message.split("\n")[2]).toBe(`  ${" ".repeat(column - 1)}^`);
  });

  it("names the known functions when a name is unknown", () => {
    expect(failure("sine(1)").message).toContain("known functions and constants: sqrt, abs");
  });

  it("reports the operator's column for division by zero inside a larger expression", () => {
    expect(failure("(4 + 4) / (2 - 2)").message).toMatch(/^At column 9: Division by zero/);
  });

  it("refuses nesting deep enough to overflow the stack", () => {
    expect(failure(`${"(".repeat(5000)}1${")".repeat(5000)}`).message).toContain("nests deeper than");
  });

  it("rejects an empty expression through its schema before running", async () => {
    await expect(calculator.invoke({ expression: "" })).rejects.toThrow(/did not match expected schema/);
  });

  it("computes integer arithmetic exactly as JavaScript does", () => {
    type Tree = { value: number } | { op: "+" | "-" | "*"; left: Tree; right: Tree };
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.integer({ min: -1000, max: 1000 }).map((value) => ({ value })),
        fc.record({
          op: fc.constantFrom("+" as const, "-" as const, "*" as const),
          left: tie("tree"),
          right: tie("tree"),
        }),
      ),
    }));
    const render = (node: Tree): string =>
      "value" in node
        ? node.value < 0
          ? `(${node.value})`
          : String(node.value)
        : `(${render(node.left)} ${node.op} ${render(node.right)})`;
    const compute = (node: Tree): number => {
      if ("value" in node) return node.value;
      const [left, right] = [compute(node.left), compute(node.right)];
      return node.op === "+" ? left + right : node.op === "-" ? left - right : left * right;
    };
    fc.assert(
      fc.property(tree, (node) => {
        expect(evaluateExpression(render(node))).toBe(compute(node));
      }),
    );
  });

  it("divides integers as JavaScript does, and refuses a zero divisor", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 }), (a, b) => {
        const expression = `(${a}) / (${b})`;
        if (b === 0) expect(failure(expression).code).toBe("division_by_zero");
        else expect(evaluateExpression(expression)).toBe(a / b);
      }),
    );
  });

  it("answers any input with a number or a ToolInputError, never another error", () => {
    const alphabet = fc.constantFrom(..."0123456789.+-*/%^(),e pisqrtminax_$".split(""));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: alphabet })), (expression) => {
        try {
          expect(Number.isFinite(evaluateExpression(expression))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolInputError);
        }
      }),
    );
  });
});
