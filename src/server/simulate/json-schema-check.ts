/** A JSON Schema: an object of keywords, or `true`/`false`. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

type SchemaObject = { readonly [keyword: string]: unknown };

const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  "date-time": /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  time: /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  url: /^https?:\/\/[^\s]+$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  ipv4: /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/,
  hostname: /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
};

/** Keys sorted, so that equal JSON values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The schema a local `$ref` ("#", "#/$defs/x", "#/definitions/x") points at; undefined otherwise. */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  }
  return typeof node === "boolean" || (node !== null && typeof node === "object") ? (node as JsonSchema) : undefined;
}

/** The JSON type names a value has ("integer" values are also "number"). */
export function typesOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number") return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  return [typeof value];
}

/** Compiles a schema `pattern` as JSON Schema reads it (ECMA-262, unicode where it parses); a pattern that
 * does not compile at all matches everything, since no value could be checked against it. */
export function patternRegExp(pattern: string): RegExp {
  for (const flags of ["u", ""]) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // Try the next reading.
    }
  }
  return /(?:)/;
}

/** True when the value is valid against the schema (the keywords of drafts 4 to 2020-12 that tools use). */
export function checkValue(schema: JsonSchema, value: unknown, root: JsonSchema = schema, depth = 0): boolean {
  if (schema === true) return true;
  if (schema === false || depth > 64) return false;
  const s = schema as SchemaObject;
  if (typeof s.$ref === "string") {
    const target = resolveRef(root, s.$ref);
    if (!target || !checkValue(target, value, root, depth + 1)) return false;
  }
  const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : undefined;
  if (types && !typesOf(value).some((type) => types.includes(type))) return false;
  if ("const" in s && canonicalJson(s.const) !== canonicalJson(value)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((option) => canonicalJson(option) === canonicalJson(value))) return false;
  const check = (sub: unknown, item: unknown) => checkValue(sub as JsonSchema, item, root, depth + 1);
  if (Array.isArray(s.allOf) && !s.allOf.every((sub) => check(sub, value))) return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub) => check(sub, value))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((sub) => check(sub, value)).length !== 1) return false;
  if (s.not !== undefined && check(s.not, value)) return false;
  if (s.if !== undefined) {
    const branch = check(s.if, value) ? s.then : s.else;
    if (branch !== undefined && !check(branch, value)) return false;
  }
  if (typeof value === "number") return checkNumber(s, value);
  if (typeof value === "string") return checkString(s, value);
  if (Array.isArray(value)) return checkArray(s, value, check);
  if (value !== null && typeof value === "object") return checkObject(s, value as Record<string, unknown>, check);
  return true;
}

function checkNumber(s: SchemaObject, value: number): boolean {
  const num = (key: string) => (typeof s[key] === "number" ? (s[key] as number) : undefined);
  const minimum = num("minimum");
  const maximum = num("maximum");
  if (minimum !== undefined && (s.exclusiveMinimum === true ? value <= minimum : value < minimum)) return false;
  if (maximum !== undefined && (s.exclusiveMaximum === true ? value >= maximum : value > maximum)) return false;
  const exclusiveMinimum = num("exclusiveMinimum");
  const exclusiveMaximum = num("exclusiveMaximum");
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return false;
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) return false;
  const multipleOf = num("multipleOf");
  if (multipleOf !== undefined && multipleOf > 0) {
    const quotient = value / multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) return false;
  }
  return true;
}

function checkString(s: SchemaObject, value: string): boolean {
  const length = [...value].length;
  if (typeof s.minLength === "number" && length < s.minLength) return false;
  if (typeof s.maxLength === "number" && length > s.maxLength) return false;
  if (typeof s.pattern === "string" && !patternRegExp(s.pattern).test(value)) return false;
  const format = typeof s.format === "string" ? FORMATS[s.format] : undefined;
  return format ? format.test(value) : true;
}

function checkArray(s: SchemaObject, value: unknown[], check: (sub: unknown, item: unknown) => boolean): boolean {
  if (typeof s.minItems === "number" && value.length < s.minItems) return false;
  if (typeof s.maxItems === "number" && value.length > s.maxItems) return false;
  if (s.uniqueItems === true && new Set(value.map(canonicalJson)).size !== value.length) return false;
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  for (let index = 0; index < value.length; index++) {
    const sub = index < tuple.length ? tuple[index] : rest;
    if (sub !== undefined && !check(sub, value[index])) return false;
  }
  if (s.contains !== undefined) {
    const matched = value.filter((item) => check(s.contains, item)).length;
    const min = typeof s.minContains === "number" ? s.minContains : 1;
    if (matched < min || (typeof s.maxContains === "number" && matched > s.maxContains)) return false;
  }
  return true;
}

function checkObject(
  s: SchemaObject,
  value: Record<string, unknown>,
  check: (sub: unknown, item: unknown) => boolean,
): boolean {
  const keys = Object.keys(value);
  if (typeof s.minProperties === "number" && keys.length < s.minProperties) return false;
  if (typeof s.maxProperties === "number" && keys.length > s.maxProperties) return false;
  if (Array.isArray(s.required) && !s.required.every((key) => typeof key === "string" && key in value)) return false;
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const patterns = Object.entries((s.patternProperties ?? {}) as Record<string, unknown>);
  for (const key of keys) {
    if (s.propertyNames !== undefined && !check(s.propertyNames, key)) return false;
    let matched = false;
    if (Object.hasOwn(properties, key)) {
      matched = true;
      if (!check(properties[key], value[key])) return false;
    }
    for (const [pattern, sub] of patterns) {
      if (!patternRegExp(pattern).test(key)) continue;
      matched = true;
      if (!check(sub, value[key])) return false;
    }
    if (!matched && s.additionalProperties !== undefined && !check(s.additionalProperties, value[key])) return false;
  }
  for (const [key, needed] of Object.entries((s.dependentRequired ?? {}) as Record<string, unknown>)) {
    if (key in value && Array.isArray(needed) && !needed.every((other) => typeof other === "string" && other in value))
      return false;
  }
  return true;
}
