import { Validator } from "@cfworker/json-schema";
import { ParameterError } from "../errors.js";
import { isStandardJsonSchema, isZod3Schema, isZod4Schema, toJsonSchema, type JsonSchema, type StandardJsonSchema } from "./json-schema.js";

/** The schema as the wire needs it, and a check of a value against the original schema. */
export interface PreparedSchema {
  readonly name: string;
  readonly description?: string;
  readonly jsonSchema: JsonSchema;
  /** True when a non-object schema was wrapped as `{ value }` for a tool call. */
  readonly wrapped: boolean;
  readonly validate: (value: unknown) => { ok: true; value: unknown } | { ok: false; problems: string[] };
}

/** Prepares any schema (zod 4, zod 3, JSON Schema) for structured output. */
export function prepareSchema(schema: unknown, name?: string): PreparedSchema {
  const jsonSchema = toJsonSchema(schema, "the structured output");
  const isObject = jsonSchema.type === "object";
  const title = typeof jsonSchema.title === "string" ? jsonSchema.title.replace(/[^A-Za-z0-9_-]/g, "_") : undefined;
  const description = typeof jsonSchema.description === "string" ? jsonSchema.description : undefined;
  return {
    name: name ?? title ?? "extract",
    ...(description === undefined ? {} : { description }),
    jsonSchema: isObject ? jsonSchema : { type: "object", properties: { value: jsonSchema }, required: ["value"] },
    wrapped: !isObject,
    validate: validatorFor(schema, jsonSchema),
  };
}

type SafeParse = (value: unknown) => { success: boolean; data?: unknown; error?: { issues: { path: PropertyKey[]; message: string }[] } };

function validatorFor(schema: unknown, jsonSchema: JsonSchema): PreparedSchema["validate"] {
  if (isZod4Schema(schema) || isZod3Schema(schema)) {
    const safeParse = (schema as unknown as { safeParse: SafeParse }).safeParse.bind(schema);
    return (value) => {
      const result = safeParse(value);
      if (result.success) return { ok: true, value: result.data };
      const issues = result.error?.issues ?? [];
      return { ok: false, problems: issues.map((issue) => `at ${pathOf(issue.path)}: ${issue.message}`) };
    };
  }
  if (isStandardJsonSchema(schema)) return standardValidator(schema);
  const validator = new Validator(jsonSchema as ConstructorParameters<typeof Validator>[0], "2019-09", false);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return { ok: true, value };
    const problems = result.errors
      .filter((unit) => !/^(properties|items|allOf|anyOf|\$ref)$/.test(unit.keyword))
      .map((unit) => `at ${unit.instanceLocation.replace(/^#/, "") || "/"}: ${unit.error}`);
    return { ok: false, problems: problems.length > 0 ? problems : result.errors.map((unit) => unit.error) };
  };
}

function standardValidator(schema: StandardJsonSchema): PreparedSchema["validate"] {
  return (value) => {
    const result = schema["~standard"].validate(value) as { value?: unknown; issues?: { message: string; path?: readonly unknown[] }[] };
    if (result instanceof Promise) throw new ParameterError("Asynchronous schema validation is not supported for structured output.");
    if (!result.issues) return { ok: true, value: result.value };
    return { ok: false, problems: result.issues.map((issue) => `at ${pathOf((issue.path ?? []).map(keyOf))}: ${issue.message}`) };
  };
}

// A Standard Schema path segment is a key or `{ key }`.
function keyOf(segment: unknown): PropertyKey {
  if (typeof segment === "object" && segment !== null && "key" in segment) return (segment as { key: PropertyKey }).key;
  return segment as PropertyKey;
}

function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "/" : `/${path.map(String).join("/")}`;
}
