import { describeType, isPlainObject, stringifyValue, valuesEqual } from "./value-semantics.js";

/** Reports a bad argument; the evaluator turns it into an ExpressionError pointing at the call. */
export type FailCall = (problem: string, fix?: string) => never;

/** A built-in function callable from expressions. */
export interface ExpressionFunction {
  /** How it is called, for messages and docs, e.g. `join(array, separator?)`. */
  readonly signature: string;
  /** What it returns, in one line. */
  readonly description: string;
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly call: (args: readonly unknown[], fail: FailCall) => unknown;
}

const MAX_JSON_INDENT = 10;

/** The fixed table of functions; nothing else can be called, and arguments are checked, never coerced. */
export const expressionFunctions: Readonly<Record<string, ExpressionFunction>> = {
  length: define(
    "length(value)",
    "characters of a string, items of an array, keys of an object; 0 for null",
    1,
    1,
    ([value], fail) => {
      if (value === null || value === undefined) return 0;
      if (typeof value === "string") return Array.from(value).length;
      if (Array.isArray(value)) return value.length;
      if (isPlainObject(value)) return Object.keys(value).length;
      return fail(`length() takes a string, array or object, got ${describeType(value)}`);
    },
  ),
  join: define(
    "join(array, separator?)",
    'the items as one string, separated by "," unless given',
    1,
    2,
    ([items, separator = ","], fail) =>
      array(items, "join", fail)
        .map(stringifyValue)
        .join(string(separator, "join", fail)),
  ),
  json: define("json(value, indent?)", "the value as JSON text", 1, 2, ([value, indent = 0], fail) => {
    const spaces = integer(indent, "json", fail);
    if (spaces < 0 || spaces > MAX_JSON_INDENT) fail(`json() indent must be 0 to ${MAX_JSON_INDENT}, got ${spaces}`);
    return JSON.stringify(value ?? null, null, spaces);
  }),
  keys: define("keys(object)", "the keys of an object, in order", 1, 1, ([value], fail) => {
    if (!isPlainObject(value)) return fail(`keys() takes an object, got ${describeType(value)}`);
    return Object.keys(value);
  }),
  contains: define(
    "contains(haystack, needle)",
    "whether a string has a substring, or an array has an item equal to needle",
    2,
    2,
    ([haystack, needle], fail) => {
      if (haystack === null || haystack === undefined) return false;
      if (typeof haystack === "string") return haystack.includes(string(needle, "contains", fail));
      if (Array.isArray(haystack)) return haystack.some((item) => valuesEqual(item, needle));
      return fail(`contains() searches a string or an array, got ${describeType(haystack)}`);
    },
  ),
  slice: define(
    "slice(value, start, end?)",
    "part of a string or array; negative positions count from the end",
    2,
    3,
    ([value, start, end], fail) => {
      const from = integer(start, "slice", fail);
      const to = end === undefined ? undefined : integer(end, "slice", fail);
      if (typeof value === "string") return Array.from(value).slice(from, to).join("");
      return array(value, "slice", fail).slice(from, to);
    },
  ),
  split: define(
    "split(text, separator)",
    "the pieces of a string between separators",
    2,
    2,
    ([text, separator], fail) => string(text, "split", fail).split(string(separator, "split", fail)),
  ),
  upper: define("upper(text)", "the string in upper case", 1, 1, ([text], fail) =>
    string(text, "upper", fail).toUpperCase(),
  ),
  lower: define("lower(text)", "the string in lower case", 1, 1, ([text], fail) =>
    string(text, "lower", fail).toLowerCase(),
  ),
  trim: define("trim(text)", "the string without leading and trailing whitespace", 1, 1, ([text], fail) =>
    string(text, "trim", fail).trim(),
  ),
  round: define(
    "round(number, digits?)",
    "the number rounded to digits decimals (default 0)",
    1,
    2,
    ([value, digits = 0], fail) => {
      const places = integer(digits, "round", fail);
      if (places < 0 || places > 15) fail(`round() digits must be 0 to 15, got ${places}`);
      const input = number(value, "round", fail);
      // Shifting by exponent text avoids 2.345 * 100 = 234.49999..., so round(2.345, 2) is 2.35.
      if (String(input).includes("e")) return Math.round(input * 10 ** places) / 10 ** places;
      return Number(`${Math.round(Number(`${input}e${places}`))}e-${places}`);
    },
  ),
  min: define("min(a, b, ...)", "the smallest number; also takes one array", 1, Infinity, (args, fail) =>
    Math.min(...numbers(args, "min", fail)),
  ),
  max: define("max(a, b, ...)", "the largest number; also takes one array", 1, Infinity, (args, fail) =>
    Math.max(...numbers(args, "max", fail)),
  ),
  number: define("number(value)", 'a number read from a string such as "42" or "1.5"', 1, 1, ([value], fail) => {
    if (typeof value === "number") return value;
    const parsed = typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
    if (!Number.isFinite(parsed)) {
      fail(
        `number() cannot read ${describeValue(value)} as a number`,
        'Pass a string of digits such as "42", or use ?? to give a default.',
      );
    }
    return parsed;
  }),
};

/** How many arguments a function takes, for messages: "1 argument", "1 to 2 arguments". */
export function describeArity(definition: ExpressionFunction): string {
  const { minArgs, maxArgs } = definition;
  const noun = (count: number): string => (count === 1 ? "argument" : "arguments");
  if (minArgs === maxArgs) return `${minArgs} ${noun(minArgs)}`;
  if (maxArgs === Infinity) return `at least ${minArgs} ${noun(minArgs)}`;
  return `${minArgs} to ${maxArgs} arguments`;
}

function define(
  signature: string,
  description: string,
  minArgs: number,
  maxArgs: number,
  call: ExpressionFunction["call"],
): ExpressionFunction {
  return { signature, description, minArgs, maxArgs, call };
}

function string(value: unknown, name: string, fail: FailCall): string {
  if (typeof value === "string") return value;
  const fix = value === null || value === undefined ? `Give a default first: ${name}(x ?? '').` : undefined;
  return fail(`${name}() expects a string, got ${describeType(value)}`, fix);
}

function number(value: unknown, name: string, fail: FailCall): number {
  if (typeof value === "number") return value;
  return fail(`${name}() expects a number, got ${describeType(value)}`, "Convert a string with number(x).");
}

function integer(value: unknown, name: string, fail: FailCall): number {
  const result = number(value, name, fail);
  return Number.isInteger(result) ? result : fail(`${name}() expects a whole number, got ${result}`);
}

function array(value: unknown, name: string, fail: FailCall): unknown[] {
  if (Array.isArray(value)) return value;
  const fix = value === null || value === undefined ? `Give a default first: ${name}(x ?? []).` : undefined;
  return fail(`${name}() expects an array, got ${describeType(value)}`, fix);
}

function numbers(args: readonly unknown[], name: string, fail: FailCall): number[] {
  const values = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  if (values.length === 0) fail(`${name}() of an empty array has no answer`, "Check length(x) > 0 first.");
  return values.map((value) => number(value, name, fail));
}

function describeValue(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : describeType(value);
}
