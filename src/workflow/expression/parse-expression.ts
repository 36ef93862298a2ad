import { treeDepth, type BinaryOperator, type ExpressionNode, type ParsedExpression } from "./ast.js";
import { didYouMean } from "../../catalog/closest-name.js";
import { expressionErrorAt, type ExpressionError } from "./expression-error.js";
import { describeArity, expressionFunctions } from "./expression-functions.js";
import { describeToken, isPunctuator, tokenize, type Punctuator, type Token } from "./tokenize.js";

/** Which part of a longer text to parse; offsets are 0-based and errors point into the whole text. */
export interface ExpressionRange {
  readonly start: number;
  readonly end: number;
}

// Nesting and tree depth are bounded so hostile input gets our error, not a stack overflow.
const MAX_NESTING = 100;
const MAX_TREE_DEPTH = 200;

// Binary levels from loosest to tightest; `??` binds looser than `||`, as in C#.
const LEVELS: ReadonlyArray<{ operators: readonly BinaryOperator[]; chainable: boolean }> = [
  { operators: ["??"], chainable: true },
  { operators: ["||"], chainable: true },
  { operators: ["&&"], chainable: true },
  { operators: ["==", "!="], chainable: false },
  { operators: ["<", "<=", ">", ">="], chainable: false },
  { operators: ["+", "-"], chainable: true },
  { operators: ["*", "/", "%"], chainable: true },
];

// The level of each binary operator (an index into LEVELS).
const BINARY_LEVELS = new Map<BinaryOperator, number>(
  LEVELS.flatMap(({ operators }, level) => operators.map((operator) => [operator, level] as const)),
);

function binaryOperator(token: Token): BinaryOperator | undefined {
  const value = token.type === "punctuator" ? (token.value as BinaryOperator) : undefined;
  return value !== undefined && BINARY_LEVELS.has(value) ? value : undefined;
}

/** Parses one expression (the text between `${{` and `}}`) into a tree; throws ExpressionError with the column. */
export function parseExpression(source: string, range?: ExpressionRange): ParsedExpression {
  const start = range?.start ?? 0;
  const end = range?.end ?? source.length;
  const tokens = tokenize(source, start, end);
  const root = new Parser(source, tokens).parseAll();
  // Each node takes a token of its own, so only an expression of more tokens than the limit can be too deep.
  if (tokens.length > MAX_TREE_DEPTH && treeDepth(root) > MAX_TREE_DEPTH) {
    throw expressionErrorAt(
      "invalid_expression",
      source,
      start,
      `The expression is more than ${MAX_TREE_DEPTH} operations deep`,
      "Split it into simpler expressions.",
    );
  }
  return { source, start, end, root };
}

class Parser {
  readonly #source: string;
  readonly #tokens: readonly Token[];
  #index = 0;
  #depth = 0;

  constructor(source: string, tokens: readonly Token[]) {
    this.#source = source;
    this.#tokens = tokens;
  }

  parseAll(): ExpressionNode {
    const first = this.#peek();
    if (first.type === "end") {
      throw this.#error(first, "The expression is empty", "Write a value or a path such as inputs.name.");
    }
    const root = this.#parseConditional();
    const next = this.#peek();
    if (next.type === "punctuator" && next.value === ")") {
      throw this.#error(next, 'Unmatched ")"', 'Remove it or add the "(" it closes.');
    }
    if (next.type !== "end") {
      throw this.#error(
        next,
        `Expected an operator before ${describeToken(next)}`,
        "Join values with an operator such as +, && or ??.",
      );
    }
    return root;
  }

  #parseConditional(): ExpressionNode {
    this.#enter();
    const test = this.#parseBinary(0);
    let node = test;
    if (this.#accept("?")) {
      const consequent = this.#parseConditional();
      this.#expect(":", 'Expected ":" after the first branch of "?"', "Write condition ? valueIfTrue : valueIfFalse.");
      const alternate = this.#parseConditional();
      node = { kind: "conditional", test, consequent, alternate, start: test.start, end: alternate.end };
    }
    this.#depth -= 1;
    return node;
  }

  // Precedence climbing: one call per operand, whatever the number of levels. An operator binding
  // at least as tight as `minLevel` joins the left side; its right side takes only tighter ones.
  #parseBinary(minLevel: number): ExpressionNode {
    let left = this.#parseUnary();
    for (;;) {
      const operator = binaryOperator(this.#peek());
      const level = operator === undefined ? undefined : BINARY_LEVELS.get(operator);
      if (operator === undefined || level === undefined || level < minLevel) return left;
      this.#index += 1;
      const right = this.#parseBinary(level + 1);
      left = { kind: "binary", operator, left, right, start: left.start, end: right.end };
      const next = binaryOperator(this.#peek());
      if (next !== undefined && BINARY_LEVELS.get(next) === level && !LEVELS[level]!.chainable) {
        throw this.#error(
          this.#peek(),
          `Comparisons cannot be chained with "${next}"`,
          "Write a < b && b < c, or add parentheses.",
        );
      }
    }
  }

  #parseUnary(): ExpressionNode {
    const token = this.#peek();
    if (isPunctuator(token, "!") || isPunctuator(token, "-")) {
      this.#enter();
      this.#index += 1;
      const operand = this.#parseUnary();
      this.#depth -= 1;
      return { kind: "unary", operator: token.value, operand, start: token.start, end: operand.end };
    }
    return this.#parsePostfix(this.#parsePrimary());
  }

  #parsePostfix(initial: ExpressionNode): ExpressionNode {
    let node = initial;
    for (;;) {
      const token = this.#peek();
      if (isPunctuator(token, ".")) {
        this.#index += 1;
        const name = this.#next();
        if (name.type !== "name") {
          throw this.#error(
            name,
            'Expected a property name after "."',
            'Write a name such as steps.look.output, or a key in brackets such as ["my key"] or [0].',
          );
        }
        const property: ExpressionNode = { kind: "literal", value: name.value, start: name.start, end: name.end };
        node = { kind: "member", object: node, property, computed: false, start: node.start, end: name.end };
      } else if (isPunctuator(token, "[")) {
        this.#index += 1;
        const property = this.#parseConditional();
        const close = this.#expect(
          "]",
          `Expected "]" to close the "[" at column ${token.start + 1}`,
          "Add the missing ].",
        );
        node = { kind: "member", object: node, property, computed: true, start: node.start, end: close.end };
      } else if (isPunctuator(token, "(")) {
        throw this.#error(
          token,
          "Only the built-in functions can be called",
          `Functions: ${Object.keys(expressionFunctions).join(", ")}.`,
        );
      } else {
        return node;
      }
    }
  }

  #parsePrimary(): ExpressionNode {
    const previous = this.#tokens[this.#index - 1];
    const token = this.#next();
    switch (token.type) {
      case "number":
      case "string":
        return { kind: "literal", value: token.value, start: token.start, end: token.end };
      case "name":
        if (token.value === "true" || token.value === "false") {
          return { kind: "literal", value: token.value === "true", start: token.start, end: token.end };
        }
        if (token.value === "null") return { kind: "literal", value: null, start: token.start, end: token.end };
        if (isPunctuator(this.#peek(), "(")) return this.#parseCall(token);
        return { kind: "identifier", name: token.value, start: token.start, end: token.end };
      case "punctuator":
        if (token.value === "(") {
          const inner = this.#parseConditional();
          this.#expect(")", `Expected ")" to close the "(" at column ${token.start + 1}`, "Add the missing ).");
          return inner;
        }
        if (token.value === "[") {
          const elements = this.#parseList("]", token);
          return { kind: "array", elements, start: token.start, end: this.#previousEnd() };
        }
        break;
      case "end":
        break;
    }
    const after = previous === undefined ? "" : ` after ${describeToken(previous)}`;
    const problem =
      token.type === "end"
        ? `The expression ends early: expected a value${after}`
        : `Expected a value but found ${describeToken(token)}`;
    throw this.#error(token, problem, "Write a literal, a path such as inputs.name, or a function call.");
  }

  #parseCall(name: Token & { type: "name" }): ExpressionNode {
    const open = this.#next();
    const definition = Object.hasOwn(expressionFunctions, name.value) ? expressionFunctions[name.value] : undefined;
    const names = Object.keys(expressionFunctions);
    if (definition === undefined) {
      throw this.#error(
        name,
        `Unknown function "${name.value}"`,
        `${didYouMean(name.value, names)}Functions: ${names.join(", ")}.`,
      );
    }
    const args = this.#parseList(")", open);
    if (args.length < definition.minArgs || args.length > definition.maxArgs) {
      throw this.#error(
        name,
        `${name.value}() takes ${describeArity(definition)}, got ${args.length}`,
        `Call it as ${definition.signature}.`,
      );
    }
    return { kind: "call", callee: name.value, args, start: name.start, end: this.#previousEnd() };
  }

  // Items separated by commas up to `close`; a trailing comma is allowed.
  #parseList(close: ")" | "]", open: Token): ExpressionNode[] {
    const items: ExpressionNode[] = [];
    while (!this.#accept(close)) {
      items.push(this.#parseConditional());
      if (this.#accept(",")) continue;
      this.#expect(
        close,
        `Expected "," or "${close}" in the list opened at column ${open.start + 1}`,
        `Separate items with commas and close the list with ${close}.`,
      );
      break;
    }
    return items;
  }

  #enter(): void {
    this.#depth += 1;
    if (this.#depth > MAX_NESTING) {
      throw this.#error(
        this.#peek(),
        `The expression nests deeper than ${MAX_NESTING} levels`,
        "Split it into simpler expressions.",
      );
    }
  }

  #peek(): Token {
    return this.#tokens[this.#index] ?? this.#tokens[this.#tokens.length - 1]!;
  }

  #next(): Token {
    const token = this.#peek();
    if (token.type !== "end") this.#index += 1;
    return token;
  }

  #previousEnd(): number {
    return this.#tokens[this.#index - 1]?.end ?? 0;
  }

  #accept(value: Punctuator): boolean {
    if (!isPunctuator(this.#peek(), value)) return false;
    this.#index += 1;
    return true;
  }

  #expect(value: Punctuator, problem: string, fix: string): Token {
    const token = this.#peek();
    if (!isPunctuator(token, value)) throw this.#error(token, `${problem}, found ${describeToken(token)}`, fix);
    this.#index += 1;
    return token;
  }

  #error(token: Token, problem: string, fix: string): ExpressionError {
    return expressionErrorAt("invalid_expression", this.#source, token.start, problem, fix);
  }
}
