import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import { ParameterError } from "../errors.js";
import type { Tool, ToolChoice } from "../gateway/wire.js";

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

// Tools toWireTool made: `bindTools` converts once, and every call then passes the same objects
// back. Copying them again per call cost time, and copies of long-lived objects made per call
// outlived young-generation GCs.
const CONVERTED = new WeakSet<Tool>();

/** A tool LangChain accepts (StructuredTool, `tool()`, OpenAI-style definition, `{ name, schema }`)
 * as a wire tool; one it made already is returned as it is. */
export function toWireTool(tool: BindToolsInput): Tool {
  if (CONVERTED.has(tool as Tool)) return tool as Tool;
  const converted = convertTool(tool);
  CONVERTED.add(converted);
  return converted;
}

function convertTool(tool: BindToolsInput): Tool {
  const record = tool as Record<string, unknown>;
  if (record.type === "function" && typeof record.function === "object" && record.function !== null) {
    const fn = record.function as Record<string, unknown>;
    const name = requireName(fn.name);
    return {
      type: "function",
      function: {
        ...fn,
        name,
        ...(fn.parameters === undefined ? {} : { parameters: toJsonSchema(fn.parameters, `tool "${name}"`) }),
      },
    };
  }
  const name = requireName(record.name);
  const schema = record.schema ?? record.parameters;
  const description = typeof record.description === "string" ? { description: record.description } : {};
  return {
    type: "function",
    function: {
      name,
      ...description,
      parameters: schema === undefined ? { type: "object", properties: {} } : toJsonSchema(schema, `tool "${name}"`),
    },
  };
}

/** Every LangChain `tool_choice` form as the wire's: `auto`, `none`, `required` (also "any"), a
 * tool name, or an object naming a function. */
export function toWireToolChoice(choice: unknown, tools: readonly Tool[] = []): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  let name: unknown;
  if (typeof choice === "string") {
    if (choice === "auto" || choice === "none" || choice === "required") return choice;
    if (choice === "any") return "required";
    name = choice;
  } else if (typeof choice === "object") {
    const record = choice as Record<string, unknown>;
    name = (record.function as { name?: unknown } | undefined)?.name ?? record.name;
  }
  if (typeof name !== "string" || name.length === 0) {
    throw new ParameterError(
      `tool_choice ${JSON.stringify(choice)} is not understood. Use "auto", "none", "required", "any", a tool name, ` +
        'or { type: "function", function: { name } }.',
    );
  }
  if (tools.length > 0 && !tools.some((tool) => tool.function.name === name)) {
    throw new ParameterError(
      `tool_choice names "${name}", but no bound tool has that name. Bound tools: ${tools.map((tool) => tool.function.name).join(", ")}.`,
    );
  }
  return { type: "function", function: { name } };
}

function requireName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0) {
    throw new ParameterError("Every tool needs a name (a non-empty string).");
  }
  return name;
}
