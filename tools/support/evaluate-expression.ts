import { MATH_CONSTANTS, MATH_FUNCTIONS } from "./math-functions.js";
import { expressionError, tokenizeExpression, type ExpressionToken } from "./tokenize-expression.js";

// Deep enough for any real formula, shallow enough that "((((..." cannot overflow the stack.
const MAX_DEPTH = 200;

/** Evaluates an arithmetic expression with a recursive-descent parser (no eval); throws ToolInputError. */
export function evaluateExpression(expression: string): number {
  return new ExpressionParser(expression).parse();
}

/** Formats a result for people: integers exactly, other values without float noise (0.1+0.2 -> 0.3). */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(15)));
}

class ExpressionParser {
  readonly #expression: string;
  readonly #tokens: ExpressionToken[];
  #position = 0;
  #depth = 0;

  constructor(expression: string) {
    this.#expression = expression;
    this.#tokens = tokenizeExpression(expression);
  }

  parse(): number {
    if (this.#peek().kind === "end") throw this.#error(this.#peek(), "The expression is empty");
    const value = this.#additive();
    const next = this.#peek();
    if (next.kind !== "end") {
      throw this.#error(next, `Expected an operator or the end, got "${next.text}"`);
    }
    return value;
  }

  #additive(): number {
    let value = this.#multiplicative();
    for (let token = this.#peek(); token.text === "+" || token.text === "-"; token = this.#peek()) {
      this.#position++;
      const right = this.#multiplicative();
      value = this.#checked(token, token.text === "+" ? value + right : value - right);
    }
    return value;
  }

  #multiplicative(): number {
    let value = this.#unary();
    for (
      let token = this.#peek();
      token.kind === "symbol" && (token.text === "*" || token.text === "/" || token.text === "%");
      token = this.#peek()
    ) {
      this.#position++;
      const right = this.#unary();
      if (token.text !== "*" && right === 0) {
        const what = token.text === "/" ? "Division by zero" : "Remainder (%) by zero";
        throw expressionError(this.#expression, token.column, what, "division_by_zero");
      }
      const result = token.text === "*" ? value * right : token.text === "/" ? value / right : value % right;
      value = this.#checked(token, result);
    }
    return value;
  }

  // Unary minus binds looser than ^, so -2^2 is -4 as in mathematics.
  #unary(): number {
    const token = this.#peek();
    if (token.text === "-" || token.text === "+") {
      this.#position++;
      const value = this.#nested(() => this.#unary());
      return token.text === "-" ? -value : value;
    }
    return this.#power();
  }

  // ^ is right-associative: 2^3^2 is 2^9.
  #power(): number {
    const base = this.#primary();
    const token = this.#peek();
    if (token.text !== "^") return base;
    this.#position++;
    const exponent = this.#nested(() => this.#unary());
    return this.#checked(token, base ** exponent, `${base} ^ ${exponent}`);
  }

  #primary(): number {
    const token = this.#next();
    if (token.kind === "number") return token.value!;
    if (token.text === "(") {
      const value = this.#nested(() => this.#additive());
      this.#expect(")", token);
      return value;
    }
    if (token.kind === "name") return this.#name(token);
    if (token.kind === "end") throw this.#error(token, "The expression ends too early; expected a number");
    throw this.#error(token, `Expected a number, a name or "(", got "${token.text}"`);
  }

  #name(token: ExpressionToken): number {
    const fn = MATH_FUNCTIONS.get(token.text);
    if (fn === undefined) {
      const constant = MATH_CONSTANTS.get(token.text);
      if (constant !== undefined) return constant;
      const known = [...MATH_FUNCTIONS.keys(), ...MATH_CONSTANTS.keys()].join(", ");
      throw this.#error(token, `Unknown name "${token.text}"; known functions and constants: ${known}`);
    }
    if (this.#peek().text !== "(") {
      throw this.#error(this.#peek(), `Expected "(" after ${token.text}; usage: ${fn.usage}`);
    }
    const open = this.#next();
    const args: number[] = [];
    if (this.#peek().text !== ")") {
      args.push(this.#nested(() => this.#additive()));
      while (this.#peek().text === ",") {
        this.#position++;
        args.push(this.#nested(() => this.#additive()));
      }
    }
    this.#expect(")", open);
    if (args.length < fn.minArguments || args.length > fn.maxArguments) {
      throw this.#error(token, `${token.text} got ${args.length} argument(s); usage: ${fn.usage}`);
    }
    const problem = fn.check?.(args);
    if (problem !== undefined) throw this.#error(token, `In ${token.text}(${args.join(", ")}), ${problem}`);
    return this.#checked(token, fn.apply(args), `${token.text}(${args.join(", ")})`);
  }

  #checked(token: ExpressionToken, value: number, what = `The ${token.text} operation`): number {
    if (Number.isNaN(value)) throw this.#error(token, `${what} has no real value`);
    if (!Number.isFinite(value)) throw this.#error(token, `${what} overflows (the result is beyond ±1.8e308)`);
    return value;
  }

  #nested(parse: () => number): number {
    const token = this.#peek();
    if (++this.#depth > MAX_DEPTH) throw this.#error(token, `The expression nests deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      this.#depth--;
    }
  }

  #expect(text: string, opening: ExpressionToken): void {
    const token = this.#next();
    if (token.text === text && token.kind === "symbol") return;
    const got = token.kind === "end" ? "the end" : `"${token.text}"`;
    const opened = `the "${opening.text}" at column ${opening.column}`;
    throw this.#error(token, `Expected "${text}" to close ${opened}, got ${got}`);
  }

  #peek(): ExpressionToken {
    return this.#tokens[this.#position]!;
  }

  #next(): ExpressionToken {
    const token = this.#tokens[this.#position]!;
    if (token.kind !== "end") this.#position++;
    return token;
  }

  #error(token: ExpressionToken, message: string) {
    return expressionError(this.#expression, token.column, message);
  }
}
