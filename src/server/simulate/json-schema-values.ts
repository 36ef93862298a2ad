import { canonicalJson, checkValue, patternRegExp, resolveRef, type JsonSchema } from "./json-schema-check.js";
import { mergeSchemas } from "./json-schema-merge.js";
import { generateNumber, generateString } from "./json-schema-scalars.js";
import type { SeededRandom } from "./seeded-random.js";

type SchemaObject = { readonly [keyword: string]: unknown };

/** How to fill a schema: the randomness, and values suggested from the conversation. */
export interface ValueOptions {
  readonly random: SeededRandom;
  /** A value for a named field (or the `index`th item of a named array); kept only when it validates. */
  readonly suggest?: (name: string, schema: SchemaObject, index?: number) => unknown;
  /** Whether to fill an optional property; without it only required ones are (as real models do). */
  readonly includeOptional?: (name: string, schema: SchemaObject, depth: number) => boolean;
  /** How many items a named array should hold (the prompt asked for "three keywords"); kept within its bounds. */
  readonly itemCount?: (name: string) => number | undefined;
}

const MAX_DEPTH = 6;
/** Longest array generated, whatever its `minItems`. */
const MAX_ITEMS = 100;
const ATTEMPTS = 4;
/** Extra positions tried for a list's items when some repeat an earlier item. */
const DISTINCT_TRIES = 6;

/** A value valid against the schema, filled from suggestions where they fit; the best effort when unsatisfiable. */
export function generateValue(schema: JsonSchema, options: ValueOptions, name = ""): unknown {
  let value: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    value = new Generator(schema, options).value(schema, name, 0);
    if (checkValue(schema, value)) return value;
  }
  return value;
}

class Generator {
  readonly #root: JsonSchema;
  readonly #options: ValueOptions;

  constructor(root: JsonSchema, options: ValueOptions) {
    this.#root = root;
    this.#options = options;
  }

  value(schema: unknown, name: string, depth: number, index?: number): unknown {
    if (schema === false) return null;
    if (schema === true || schema === undefined || schema === null || typeof schema !== "object") {
      return this.#suggested({}, name, index) ?? generateString({}, name, this.#options.random);
    }
    let s = schema as SchemaObject;
    if (typeof s.$ref === "string") {
      const { $ref, ...rest } = s;
      const target = depth < MAX_DEPTH * 2 ? resolveRef(this.#root, $ref as string) : undefined;
      s = target === false ? { not: {} } : mergeSchemas(rest, target === true || target === undefined ? {} : target);
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      s = (allOf as unknown[]).reduce<SchemaObject>((merged, part) => mergeSchemas(merged, this.#resolve(part)), rest);
    }
    const check = (value: unknown) => checkValue(s as JsonSchema, value, this.#root);
    const suggested = this.#suggested(s, name, index);
    if (suggested !== undefined && check(suggested)) return suggested;
    if ("const" in s) return s.const;
    if (Array.isArray(s.enum)) {
      const valid = s.enum.filter(check);
      return valid.length > 0 ? this.#options.random.pick(valid) : s.enum[0];
    }
    if ("default" in s && check(s.default)) return s.default;
    const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
    if (branches) {
      const { anyOf, oneOf, ...rest } = s;
      const ordered = [...branches].sort((a, b) => Number(isNullSchema(a)) - Number(isNullSchema(b)));
      let last: unknown = null;
      for (const branch of ordered) {
        last = this.value(mergeSchemas(rest, this.#resolve(branch)), name, depth + 1, index);
        if (check(last)) return last;
      }
      return last;
    }
    let last: unknown = null;
    for (const type of typesToTry(s)) {
      last = this.#ofType(type, s, name, depth);
      if (check(last)) return last;
    }
    return last;
  }

  #resolve(schema: unknown): SchemaObject {
    if (schema === false) return { not: {} };
    if (schema === null || typeof schema !== "object") return {};
    const s = schema as SchemaObject;
    if (typeof s.$ref !== "string") return s;
    const { $ref, ...rest } = s;
    const target = resolveRef(this.#root, $ref as string);
    return mergeSchemas(rest, target === undefined || typeof target === "boolean" ? {} : target);
  }

  #suggested(schema: SchemaObject, name: string, index?: number): unknown {
    return name === "" ? undefined : this.#options.suggest?.(name, schema, index);
  }

  #ofType(type: string, s: SchemaObject, name: string, depth: number): unknown {
    const random = this.#options.random;
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return random.chance(0.5);
      case "integer":
      case "number":
        return generateNumber(s, type === "integer", random);
      case "object":
        return this.#object(s, depth);
      case "array":
        return this.#array(s, name, depth);
      default:
        return generateString(s, name, random);
    }
  }

  #object(s: SchemaObject, depth: number): Record<string, unknown> {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(s.required)
      ? s.required.filter((key): key is string => typeof key === "string")
      : [];
    const maxProperties = typeof s.maxProperties === "number" ? s.maxProperties : Number.POSITIVE_INFINITY;
    const minProperties = typeof s.minProperties === "number" ? s.minProperties : 0;
    const keys = [...new Set(required)];
    for (const key of Object.keys(properties)) {
      if (keys.includes(key) || keys.length >= maxProperties || properties[key] === false) continue;
      const sub = this.#resolve(properties[key]);
      if (keys.length < minProperties || this.#options.includeOptional?.(key, sub, depth) === true) keys.push(key);
    }
    const extra = s.additionalProperties === undefined ? {} : s.additionalProperties;
    for (let counter = 1; keys.length < minProperties && extra !== false && counter < 100; counter++) {
      if (!keys.includes(`field${counter}`)) keys.push(`field${counter}`);
    }
    for (const [key, needed] of Object.entries((s.dependentRequired ?? {}) as Record<string, unknown>)) {
      if (keys.includes(key) && Array.isArray(needed))
        keys.push(...needed.filter((other): other is string => typeof other === "string" && !keys.includes(other)));
    }
    const result: Record<string, unknown> = {};
    for (const key of keys) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : (patternSchema(s, key) ?? extra);
      result[key] = this.value(sub, key, depth + 1);
    }
    return result;
  }

  #array(s: SchemaObject, name: string, depth: number): unknown[] {
    const random = this.#options.random;
    const tuple = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as unknown[];
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    let max = typeof s.maxItems === "number" ? s.maxItems : min + 3;
    if (rest === false) max = Math.min(max, tuple.length);
    const wanted = depth >= MAX_DEPTH ? min : (this.#options.itemCount?.(name) ?? random.int(1, 3));
    const count = Math.min(MAX_ITEMS, Math.max(min, Math.min(max, Math.max(wanted, s.contains !== undefined ? 1 : 0))));
    const items: unknown[] = [];
    const seen = new Set<string>();
    // Items are asked for by their position among the distinct ones, so a list does not say the same thing twice.
    for (let index = 0, position = 0; index < count && position < count + DISTINCT_TRIES; position++) {
      const sub = index < tuple.length ? tuple[index] : rest;
      let item = this.value(sub, name, depth + 1, position);
      const repeated = seen.has(canonicalJson(item));
      if (repeated && typeof item === "string" && position + 1 < count + DISTINCT_TRIES) continue;
      if (repeated && typeof item === "string" && s.uniqueItems !== true && index >= min) break;
      for (
        let retry = 0;
        (s.uniqueItems === true || typeof item === "string") && seen.has(canonicalJson(item)) && retry < 8;
        retry++
      ) {
        const varied = vary(item, index + retry);
        item =
          varied !== undefined && checkValue(this.#resolve(sub), varied, this.#root)
            ? varied
            : this.value(sub, "", depth + 1);
      }
      seen.add(canonicalJson(item));
      items.push(item);
      index++;
    }
    if (s.contains !== undefined && !items.some((item) => checkValue(s.contains as JsonSchema, item, this.#root))) {
      const item = this.value(s.contains, name, depth + 1);
      if (items.length < max) items.push(item);
      else if (items.length > 0) items[items.length - 1] = item;
    }
    return items;
  }
}

function patternSchema(s: SchemaObject, key: string): unknown {
  const patterns = Object.entries((s.patternProperties ?? {}) as Record<string, unknown>);
  return patterns.find(([pattern]) => patternRegExp(pattern).test(key))?.[1];
}

// A near neighbour of a repeated array item, for `uniqueItems`.
function vary(item: unknown, index: number): unknown {
  if (typeof item === "string") return `${item} ${index + 1}`;
  if (typeof item === "number") return item + index + 1;
  if (typeof item === "boolean") return !item;
  return undefined;
}

function isNullSchema(schema: unknown): boolean {
  return schema !== null && typeof schema === "object" && (schema as SchemaObject).type === "null";
}

/** The types to try, most useful first; inferred from the keywords when `type` is absent. */
function typesToTry(s: SchemaObject): string[] {
  const declared = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : undefined;
  if (declared) return [...declared].sort((a, b) => Number(a === "null") - Number(b === "null"));
  if (s.properties || s.required || s.additionalProperties !== undefined || s.minProperties !== undefined)
    return ["object"];
  if (s.items !== undefined || s.prefixItems || s.minItems !== undefined || s.contains !== undefined) return ["array"];
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((key) => key in s))
    return ["number"];
  return ["string", "number", "boolean", "object", "array", "null"];
}
