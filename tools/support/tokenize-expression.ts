import { ToolInputError } from "../../src/errors.js";

/** One lexical unit of an arithmetic expression; `column` is 1-based. */
export interface ExpressionToken {
  readonly kind: "number" | "name" | "symbol" | "end";
  readonly text: string;
  readonly column: number;
  readonly value?: number;
}

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const SYMBOLS = new Set(["+", "-", "*", "/", "%", "^", "(", ")", ","]);
// Models often write these typographic forms; reading them costs nothing and saves a retry.
const ALIASES: Record<string, string> = { "×": "*", "÷": "/", "−": "-", "**": "^" };

/** Builds the error a calculator reports, pointing at the column where the expression went wrong. */
export function expressionError(
  expression: string,
  column: number,
  message: string,
  code = "invalid_expression",
): ToolInputError {
  const pointer = `${" ".repeat(Math.max(0, column - 1))}^`;
  return new ToolInputError(`At column ${column}: ${message}.\n  ${expression}\n  ${pointer}`, { code });
}

/** Splits an arithmetic expression into numbers, names and symbols. */
export function tokenizeExpression(expression: string): ExpressionToken[] {
  const tokens: ExpressionToken[] = [];
  let index = 0;
  while (index < expression.length) {
    const rest = expression.slice(index);
    const column = index + 1;
    const space = /^\s+/.exec(rest);
    if (space) {
      index += space[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) {
        throw expressionError(expression, column, `The number ${number[0]} is too large`);
      }
      tokens.push({ kind: "number", text: number[0], column, value });
      index += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ kind: "name", text: name[0].toLowerCase(), column });
      index += name[0].length;
      continue;
    }
    const alias = rest.startsWith("**") ? "**" : String.fromCodePoint(rest.codePointAt(0)!);
    const symbol = ALIASES[alias] ?? alias;
    if (!SYMBOLS.has(symbol)) {
      throw expressionError(
        expression,
        column,
        `Unexpected character "${alias}"; use numbers, + - * / % ^, parentheses and functions`,
      );
    }
    tokens.push({ kind: "symbol", text: symbol, column });
    index += alias.length;
  }
  tokens.push({ kind: "end", text: "", column: expression.length + 1 });
  return tokens;
}
