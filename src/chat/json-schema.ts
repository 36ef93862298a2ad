import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import { ParameterError } from "../errors.js";

/** A JSON Schema object as it goes on the wire. */
export type JsonSchema = Record<string, unknown>;

type V3Schema = Parameters<typeof zodToJsonSchema>[0];

/** True for a zod 4 schema (classic or mini); these carry `_zod`. */
export function isZod4Schema(schema: unknown): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

/** True for a zod 3 schema (from "zod/v3" or zod 3.x); these carry `_def` and no `_zod`. */
export function isZod3Schema(schema: unknown): schema is V3Schema {
  return (
    typeof schema === "object" &&
    schema !== null &&
    !("_zod" in schema) &&
    "_def" in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === "function"
  );
}

/** A Standard Schema that can give its own JSON Schema (ArkType, Valibot and others). */
export interface StandardJsonSchema {
  readonly "~standard": {
    readonly jsonSchema: { input(options: { target: "draft-2020-12" | "draft-07" }): Record<string, unknown> };
    validate(value: unknown): unknown;
  };
}

/** True for a Standard Schema that converts itself to JSON Schema. */
export function isStandardJsonSchema(schema: unknown): schema is StandardJsonSchema {
  const standard = (schema as { "~standard"?: { jsonSchema?: { input?: unknown } } } | null)?.["~standard"];
  return typeof standard?.jsonSchema?.input === "function";
}

/** Any schema a user may give (zod 4, zod 3, a Standard JSON Schema, or JSON Schema) as JSON Schema. */
export function toJsonSchema(schema: unknown, what: string): JsonSchema {
  let converted: unknown;
  // zod-to-json-schema turns a zod 4 schema into `{}` without an error, so each version goes to
  // its own converter.
  if (isZod4Schema(schema)) converted = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  else if (isZod3Schema(schema)) converted = zodToJsonSchema(schema, { $refStrategy: "root" });
  else if (isStandardJsonSchema(schema)) converted = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
  else if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) converted = schema;
  else throw new ParameterError(`The schema of ${what} must be a zod schema or a JSON Schema object.`);
  const { $schema: _ignored, ...rest } = converted as JsonSchema;
  return rest;
}
