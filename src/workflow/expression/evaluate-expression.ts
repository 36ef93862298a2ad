import type { BinaryNode, ExpressionNode, MemberNode, ParsedExpression } from "./ast.js";
import { didYouMean } from "../../catalog/closest-name.js";
import { expressionErrorAt, type ExpressionError } from "./expression-error.js";
import { expressionFunctions } from "./expression-functions.js";
import { describeType, isTruthy, stringifyValue, valuesEqual } from "./value-semantics.js";

/** The names an expression can read: `{ inputs, steps, run }` plus the map variable inside a map. */
export type ExpressionScope = Readonly<Record<string, unknown>>;

/** Evaluates a parsed expression against a scope; throws ExpressionError (code `expression_failed`). */
export function evaluateExpression(expression: ParsedExpression, scope: ExpressionScope): unknown {
  return new Evaluator(expression.source, scope).evaluate(expression.root);
}

class Evaluator {
  readonly #source: string;
  readonly #scope: ExpressionScope;

  constructor(source: string, scope: ExpressionScope) {
    this.#source = source;
    this.#scope = scope;
  }

  evaluate(node: ExpressionNode): unknown {
    switch (node.kind) {
      case "literal":
        return node.value;
      case "identifier":
        return this.#lookUp(node.name, node);
      case "member":
        return this.#readMember(node);
      case "unary": {
        const operand = this.evaluate(node.operand);
        if (node.operator === "!") return !isTruthy(operand);
        return this.#finite(-this.#number(operand, node.operand, "-"), node);
      }
      case "binary":
        return this.#binary(node);
      case "conditional":
        return isTruthy(this.evaluate(node.test)) ? this.evaluate(node.consequent) : this.evaluate(node.alternate);
      case "array":
        return node.elements.map((element) => this.evaluate(element));
      case "call": {
        const definition = Object.hasOwn(expressionFunctions, node.callee)
          ? expressionFunctions[node.callee]
          : undefined;
        if (definition === undefined) throw this.#error(node, `Unknown function "${node.callee}"`);
        const args = node.args.map((arg) => this.evaluate(arg));
        return definition.call(args, (problem, fix) => {
          throw this.#error(node, problem, fix);
        });
      }
    }
  }

  #lookUp(name: string, node: ExpressionNode): unknown {
    if (Object.hasOwn(this.#scope, name)) return this.#scope[name];
    const roots = Object.keys(this.#scope);
    const fix = Object.hasOwn(expressionFunctions, name)
      ? `${name} is a function: call it as ${expressionFunctions[name]?.signature}.`
      : `${didYouMean(name, roots)}Expressions here can read: ${roots.join(", ")}.`;
    throw this.#error(node, `Unknown name "${name}"`, fix);
  }

  #readMember(node: MemberNode): unknown {
    const object = this.evaluate(node.object);
    const key = this.evaluate(node.property);
    // Optional chaining: a skipped step's output reads as undefined all the way down, so `?? x` works.
    if (object === null || object === undefined) return undefined;
    if (typeof key !== "string" && typeof key !== "number") {
      throw this.#error(
        node.property,
        `A ${describeType(key)} cannot be used as a key`,
        "Use a string or a whole number in [ ].",
      );
    }
    const owner = this.#text(node.object);
    if (Array.isArray(object) || typeof object === "string") {
      if (key === "length") return object.length;
      if (typeof key === "number" && Number.isInteger(key)) return key >= 0 ? object[key] : undefined;
      const kind = describeType(object);
      throw this.#error(
        node.property,
        `${owner} is ${article(kind)}; it has no property ${JSON.stringify(key)}`,
        kind === "array"
          ? "Pick an item with [0], or turn the items into text with join()."
          : "Strings have only length and [index].",
      );
    }
    if (typeof object !== "object") {
      throw this.#error(
        node.property,
        `${owner} is ${article(describeType(object))}; it has no property ${JSON.stringify(key)}`,
      );
    }
    const record = object as Record<string, unknown>;
    return Object.hasOwn(record, key) ? record[key] : undefined;
  }

  #binary(node: BinaryNode): unknown {
    const left = this.evaluate(node.left);
    switch (node.operator) {
      case "&&":
        return isTruthy(left) ? this.evaluate(node.right) : left;
      case "||":
        return isTruthy(left) ? left : this.evaluate(node.right);
      case "??":
        return left === null || left === undefined ? this.evaluate(node.right) : left;
    }
    const right = this.evaluate(node.right);
    switch (node.operator) {
      case "==":
        return valuesEqual(left, right);
      case "!=":
        return !valuesEqual(left, right);
      case "<":
      case "<=":
      case ">":
      case ">=":
        return this.#compare(node, left, right);
      case "+":
        if (typeof left === "string" || typeof right === "string") return stringifyValue(left) + stringifyValue(right);
        if (typeof left !== "number" || typeof right !== "number") {
          throw this.#error(
            node,
            `Cannot add ${article(describeType(left))} and ${article(describeType(right))}`,
            "Add numbers, or put a string on one side to join text; use json() or join() for arrays.",
          );
        }
        return this.#finite(left + right, node);
    }
    const a = this.#number(left, node.left, node.operator);
    const b = this.#number(right, node.right, node.operator);
    if ((node.operator === "/" || node.operator === "%") && b === 0) {
      throw this.#error(node, "Division by zero", "Check the divisor first, e.g. b == 0 ? 0 : a / b.");
    }
    const result =
      node.operator === "-" ? a - b : node.operator === "*" ? a * b : node.operator === "/" ? a / b : a % b;
    return this.#finite(result, node);
  }

  #compare(node: BinaryNode, left: unknown, right: unknown): boolean {
    const comparable =
      (typeof left === "number" && typeof right === "number") ||
      (typeof left === "string" && typeof right === "string");
    if (!comparable) {
      throw this.#error(
        node,
        `Cannot compare ${article(describeType(left))} with ${article(describeType(right))} using "${node.operator}"`,
        "Compare numbers with numbers or strings with strings; convert text with number(x).",
      );
    }
    const [a, b] = [left as number | string, right as number | string];
    switch (node.operator) {
      case "<":
        return a < b;
      case "<=":
        return a <= b;
      case ">":
        return a > b;
      default:
        return a >= b;
    }
  }

  #number(value: unknown, node: ExpressionNode, operation: string): number {
    if (typeof value === "number") return value;
    throw this.#error(
      node,
      `"${operation}" needs a number, but ${this.#text(node)} is ${article(describeType(value))}`,
      "Convert text with number(x), or give a default with ??.",
    );
  }

  #finite(value: number, node: ExpressionNode): number {
    if (Number.isFinite(value)) return value;
    throw this.#error(
      node,
      `${this.#text(node)} is not a finite number`,
      "Keep numbers within the range JSON can hold.",
    );
  }

  #text(node: ExpressionNode): string {
    return this.#source.slice(node.start, node.end);
  }

  #error(node: ExpressionNode, problem: string, fix?: string): ExpressionError {
    return expressionErrorAt("expression_failed", this.#source, node.start, problem, fix);
  }
}

function article(type: string): string {
  if (type === "null" || type === "undefined") return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
