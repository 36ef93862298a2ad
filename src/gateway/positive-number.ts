import { ConfigError } from "../errors.js";

/** Returns `value` if it is a finite number > 0; otherwise throws naming the option. */
export function positiveNumber(name: string, value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`Expected ${name} to be a positive number, got ${String(value)}.`);
  }
  return value;
}

/** Returns `value` if it is an integer >= 1 (or Infinity when allowed); otherwise throws naming the option. */
export function positiveInteger(name: string, value: number, options: { allowInfinity?: boolean } = {}): number {
  if (options.allowInfinity === true && value === Number.POSITIVE_INFINITY) return value;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(`Expected ${name} to be an integer >= 1, got ${String(value)}.`);
  }
  return value;
}
