import { createRequire } from "node:module";
import type { Ajv as AjvDraft7, AnySchema, ErrorObject } from "ajv";
import type { ValuePath } from "../expression/index.js";
import { validate as validate2020 } from "./json-schema-meta-2020.js";

/** One way a value fails to be a JSON Schema, at its path inside the schema. */
export interface SchemaProblem {
  readonly path: ValuePath;
  readonly message: string;
}

interface MetaValidator {
  validateSchema(schema: AnySchema): boolean | Promise<unknown>;
  readonly errors?: ErrorObject[] | null;
}

const require = createRequire(import.meta.url);
// Draft 2020-12, the default, is checked by ajv's validator generated ahead of time (compiling the
// meta-schema cost more than the rest of a small file's load); draft-07 is compiled on first use.
const draft2020: MetaValidator = {
  validateSchema: (schema) => (validate2020 as (data: unknown) => boolean)(schema),
  get errors() {
    return (validate2020 as { errors?: ErrorObject[] | null }).errors;
  },
};
let draft7: MetaValidator | undefined;

/**
 * Checks a value against the JSON Schema meta-schema (draft 2020-12, or draft-07 when its `$schema`
 * says so): `{ type: strin }` is a problem, unknown keywords are not. A `$schema` of another draft
 * is not checked. One problem per place, the most telling first.
 */
export function jsonSchemaProblems(schema: unknown): SchemaProblem[] {
  const validator = metaValidatorFor(schema);
  if (validator === undefined || validator.validateSchema(schema as AnySchema) === true) return [];
  const first = new Map<string, ErrorObject>();
  for (const error of validator.errors ?? []) if (!first.has(error.instancePath)) first.set(error.instancePath, error);
  return [...first.values()].map((error) => {
    const path = valuePath(schema, error.instancePath);
    return { path, message: describe(error, valueAt(schema, path)) };
  });
}

function metaValidatorFor(schema: unknown): MetaValidator | undefined {
  const declared =
    schema !== null && typeof schema === "object" && "$schema" in schema ? String(schema.$schema) : undefined;
  if (declared === undefined || declared.includes("2020-12")) return draft2020;
  if (declared.includes("draft-07")) {
    draft7 ??= new (require("ajv") as { Ajv: typeof AjvDraft7 }).Ajv({ strict: false, allErrors: true });
    return draft7;
  }
  return undefined;
}

// "<value> must ...": the place is the problem's path, shown by whoever reports it.
function describe(error: ErrorObject, value: unknown): string {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  const rule =
    allowed === undefined
      ? (error.message ?? "is not valid").replace(
          /must be (\w+(?:,\w+)+)$/,
          (_, types: string) => `must be ${types.split(",").join(" or ")}`,
        )
      : `must be one of ${allowed.map(String).join(", ")}`;
  return `${value === undefined ? "The value" : JSON.stringify(value)} ${rule}.`;
}

// A JSON pointer as a value path: array indexes as numbers, so the loader can find the place in the file.
function valuePath(root: unknown, pointer: string): ValuePath {
  if (pointer === "") return [];
  const path: Array<string | number> = [];
  let node = root;
  for (const raw of pointer.slice(1).split("/")) {
    const segment = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const key = Array.isArray(node) ? Number(segment) : segment;
    path.push(key);
    node = node !== null && typeof node === "object" ? (node as Record<string | number, unknown>)[key] : undefined;
  }
  return path;
}

function valueAt(root: unknown, path: ValuePath): unknown {
  let node = root;
  for (const key of path)
    node = node !== null && typeof node === "object" ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}
