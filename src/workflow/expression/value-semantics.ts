/** A type name for messages: `string`, `number`, `boolean`, `null`, `undefined`, `array` or `object`. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Whether a value is a plain object (not an array, null, or a class instance like Date). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Truthiness for `!`, `&&`, `||`, `? :` and `if:`, the same as JavaScript's: false, 0, NaN, "",
 * null and undefined are false; every array and object, even an empty one, is true.
 */
export function isTruthy(value: unknown): boolean {
  return Boolean(value);
}

/** Equality for `==` and `!=`: no type coercion, arrays and objects by content, null equals undefined. */
export function valuesEqual(left: unknown, right: unknown): boolean {
  if (left === null || left === undefined) return right === null || right === undefined;
  if (Array.isArray(left)) {
    return (
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => valuesEqual(item, right[index]))
    );
  }
  if (isPlainObject(left)) {
    if (!isPlainObject(right)) return false;
    const leftKeys = definedKeys(left);
    const rightKeys = definedKeys(right);
    return (
      leftKeys.length === rightKeys.length &&
      leftKeys.every((key) => Object.hasOwn(right, key) && valuesEqual(left[key], right[key]))
    );
  }
  return left === right;
}

/** How a value reads inside a longer string: null and undefined as "", arrays and objects as JSON. */
export function stringifyValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function definedKeys(object: Record<string, unknown>): string[] {
  return Object.keys(object).filter((key) => object[key] !== undefined);
}
