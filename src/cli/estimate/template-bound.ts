import { countTextTokens } from "../../catalog/tokens.js";
import {
  evaluateExpression,
  hasExpression,
  parseTemplate,
  referencesOf,
  stringifyValue,
  type ParsedExpression,
  type Reference,
} from "../../workflow/expression/index.js";
import type { EstimateContext } from "./estimate-context.js";
import { itemTokens, outputTokenBound } from "./step-output-bound.js";

/** A text's size before the run: what is known as text, plus tokens allowed for what is only bounded. */
export interface TextBound {
  /** Literal text, with expressions whose values are known (inputs, literal map items) rendered in place. */
  readonly text: string;
  /** Tokens allowed for expressions known only by a bound (an earlier step's output limit). */
  readonly extraTokens: number;
  /** Those expressions, as written, with their bounds. */
  readonly bounded: ReadonlyArray<{ readonly expression: string; readonly tokens: number }>;
  /** Expressions whose size cannot be bounded before the run, as written. */
  readonly unknown: readonly string[];
}

/** Tokens allowed for a `run.*` value (an id, a time, a name). */
const RUN_VALUE_TOKENS = 32;
/** Combinations of map items tried when rendering an expression over several variables. */
const MAX_COMBINATIONS = 1000;

type ExpressionBound =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "tokens"; readonly tokens: number }
  | { readonly kind: "unknown" };

/** The size of a step field as it will be sent: a template string, or any other value as text. */
export function boundText(value: unknown, context: EstimateContext): TextBound {
  if (typeof value !== "string") return literal(stringifyValue(value));
  if (!hasExpression(value)) return literal(value);
  let text = "";
  let extraTokens = 0;
  const bounded: Array<{ expression: string; tokens: number }> = [];
  const unknown: string[] = [];
  for (const part of parseTemplate(value).parts) {
    if (part.kind === "text") {
      text += part.text;
      continue;
    }
    const bound = boundExpression(part.expression, context);
    const written = `\${{ ${part.expression.source.slice(part.expression.start, part.expression.end).trim()} }}`;
    if (bound.kind === "text") text += bound.text;
    else if (bound.kind === "tokens") {
      extraTokens += bound.tokens;
      bounded.push({ expression: written, tokens: bound.tokens });
    } else unknown.push(written);
  }
  return { text, extraTokens, bounded, unknown };
}

/** A text known in full. */
export function literal(text: string): TextBound {
  return { text, extraTokens: 0, bounded: [], unknown: [] };
}

/** Adds bounds of several fields that go into one request. */
export function joinBounds(bounds: readonly TextBound[], separator = "\n"): TextBound {
  return {
    text: bounds.map((bound) => bound.text).join(separator),
    extraTokens: bounds.reduce((sum, bound) => sum + bound.extraTokens, 0),
    bounded: bounds.flatMap((bound) => bound.bounded),
    unknown: bounds.flatMap((bound) => bound.unknown),
  };
}

function boundExpression(expression: ParsedExpression, context: EstimateContext): ExpressionBound {
  const references = referencesOf(expression);
  const renderable = references.every(
    (reference) =>
      (reference.root === "inputs" && knownInput(reference, context)) ||
      (context.variables.get(reference.root)?.items !== undefined && !reference.dynamic),
  );
  if (renderable) {
    const text = renderLongest(expression, references, context);
    if (text !== undefined) return { kind: "text", text };
  }
  let tokens = 0;
  for (const reference of references) {
    const each = referenceTokens(reference, context);
    if (each === undefined) return { kind: "unknown" };
    tokens += each;
  }
  return { kind: "tokens", tokens };
}

function knownInput(reference: Reference, context: EstimateContext): boolean {
  const name = reference.path[0];
  return typeof name === "string" && !context.missingInputs.has(name) && !reference.dynamic;
}

// The longest rendering over the known items of every map variable the expression reads.
function renderLongest(
  expression: ParsedExpression,
  references: readonly Reference[],
  context: EstimateContext,
): string | undefined {
  const names = [...new Set(references.map((reference) => reference.root).filter((root) => root !== "inputs"))];
  let scopes: Array<Record<string, unknown>> = [{ inputs: context.inputs }];
  for (const name of names) {
    const items = context.variables.get(name)?.items ?? [];
    scopes = scopes.flatMap((scope) => items.map((item) => ({ ...scope, [name]: item })));
    if (scopes.length > MAX_COMBINATIONS) return undefined;
  }
  let longest: string | undefined;
  for (const scope of scopes) {
    let text: string;
    try {
      text = stringifyValue(evaluateExpression(expression, scope));
    } catch {
      return undefined;
    }
    if (longest === undefined || countTextTokens(text) > countTextTokens(longest)) longest = text;
  }
  return longest ?? "";
}

// Each reference counts in full (an upper bound: the same value spliced twice costs twice).
function referenceTokens(reference: Reference, context: EstimateContext): number | undefined {
  if (reference.root === "steps") {
    const id = reference.path[0];
    if (typeof id !== "string" || reference.path[1] !== "output") return undefined;
    return outputTokenBound(id, reference.path.slice(2), context);
  }
  if (reference.root === "run") return RUN_VALUE_TOKENS;
  if (reference.root === "inputs") {
    const name = reference.path[0];
    if (typeof name !== "string" || context.missingInputs.has(name)) return undefined;
    return countTextTokens(stringifyValue(context.inputs[name]));
  }
  const variable = context.variables.get(reference.root);
  if (variable?.items !== undefined) return itemTokens(variable.items);
  return variable?.tokens;
}
