/** A function the calculator knows: how many arguments it takes and what it computes. */
export interface MathFunction {
  readonly minArguments: number;
  readonly maxArguments: number;
  readonly usage: string;
  /** Returns what is wrong with the arguments, for rules NaN would not explain. */
  readonly check?: (args: readonly number[]) => string | undefined;
  readonly apply: (args: readonly number[]) => number;
}

function unary(usage: string, apply: (x: number) => number): MathFunction {
  return { minArguments: 1, maxArguments: 1, usage, apply: (args) => apply(args[0]!) };
}

function variadic(usage: string, apply: (...values: number[]) => number): MathFunction {
  return { minArguments: 1, maxArguments: Number.POSITIVE_INFINITY, usage, apply: (args) => apply(...args) };
}

/** Rounds half away from zero (2.5 -> 3, -2.5 -> -3), the rule people expect, unlike Math.round. */
export function roundHalfAwayFromZero(value: number, digits = 0): number {
  const magnitude = Math.abs(value);
  const text = String(magnitude);
  // Shifting through the decimal string avoids 1.005 * 100 = 100.49999... rounding down.
  const rounded = text.includes("e")
    ? Math.round(magnitude * 10 ** digits) / 10 ** digits
    : Number(`${Math.round(Number(`${text}e${digits}`))}e-${digits}`);
  return Math.sign(value) * rounded;
}

/** The functions the calculator knows, by lower-case name. */
export const MATH_FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map<string, MathFunction>([
  ["sqrt", unary("sqrt(x)", Math.sqrt)],
  ["abs", unary("abs(x)", Math.abs)],
  ["floor", unary("floor(x)", Math.floor)],
  ["ceil", unary("ceil(x)", Math.ceil)],
  ["trunc", unary("trunc(x)", Math.trunc)],
  ["exp", unary("exp(x)", Math.exp)],
  ["ln", unary("ln(x)", Math.log)],
  ["log10", unary("log10(x)", Math.log10)],
  ["log2", unary("log2(x)", Math.log2)],
  ["sin", unary("sin(x) (radians)", Math.sin)],
  ["cos", unary("cos(x) (radians)", Math.cos)],
  ["tan", unary("tan(x) (radians)", Math.tan)],
  ["min", variadic("min(a, b, ...)", Math.min)],
  ["max", variadic("max(a, b, ...)", Math.max)],
  ["pow", { minArguments: 2, maxArguments: 2, usage: "pow(x, y)", apply: ([x, y]) => x! ** y! }],
  [
    "log",
    {
      minArguments: 1,
      maxArguments: 2,
      usage: "log(x) (natural) or log(x, base)",
      check: ([, base]) =>
        base !== undefined && (base <= 0 || base === 1) ? "the base of log must be positive and not 1" : undefined,
      apply: ([x, base]) => (base === undefined ? Math.log(x!) : Math.log(x!) / Math.log(base)),
    },
  ],
  [
    "round",
    {
      minArguments: 1,
      maxArguments: 2,
      usage: "round(x) or round(x, digits) with digits 0..15",
      check: ([, digits]) =>
        digits !== undefined && !(Number.isInteger(digits) && digits >= 0 && digits <= 15)
          ? `the digits of round must be a whole number from 0 to 15, got ${digits}`
          : undefined,
      apply: ([x, digits]) => roundHalfAwayFromZero(x!, digits ?? 0),
    },
  ],
]);

/** Named constants, by lower-case name. */
export const MATH_CONSTANTS: ReadonlyMap<string, number> = new Map([
  ["pi", Math.PI],
  ["e", Math.E],
]);
