import { Validator } from "@cfworker/json-schema";
import { ParameterError, StructuredOutputError } from "../errors.js";
import type { ChatCall } from "./call-chat.js";
import type { ChatReply } from "./chat-reply.js";
import {
  isStandardJsonSchema,
  isZod3Schema,
  isZod4Schema,
  toJsonSchema,
  type JsonSchema,
  type StandardJsonSchema,
} from "./json-schema.js";

/** How structured output is asked for: a forced tool call (default), JSON mode, or a JSON Schema
 * response format. */
export type StructuredOutputMethod = "functionCalling" | "jsonMode" | "jsonSchema";

/** The schema as the wire needs it, and a check of a value against the original schema. */
export interface PreparedSchema {
  readonly name: string;
  readonly description?: string;
  readonly jsonSchema: JsonSchema;
  /** True when a non-object schema was wrapped as `{ value }` for a tool call. */
  readonly wrapped: boolean;
  /** The schema as given (unwrapped), as JSON Schema. */
  readonly original: JsonSchema;
  readonly validate: (value: unknown) => { ok: true; value: unknown } | { ok: false; problems: string[] };
}

/** Prepares any schema (zod 4, zod 3, a Standard JSON Schema, JSON Schema) for structured output. */
export function prepareSchema(schema: unknown, name?: string): PreparedSchema {
  const jsonSchema = toJsonSchema(schema, "the structured output");
  const isObject = jsonSchema.type === "object";
  const title =
    typeof jsonSchema.title === "string" ? jsonSchema.title.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) : undefined;
  const description = typeof jsonSchema.description === "string" ? jsonSchema.description : undefined;
  return {
    name: name ?? title ?? "extract",
    ...(description === undefined ? {} : { description }),
    jsonSchema: isObject ? jsonSchema : { type: "object", properties: { value: jsonSchema }, required: ["value"] },
    wrapped: !isObject,
    original: jsonSchema,
    validate: validatorFor(schema, jsonSchema),
  };
}

/** The request fields that ask a model for output in the schema's shape. */
export function structuredRequest(
  prepared: PreparedSchema,
  method: StructuredOutputMethod = "functionCalling",
  strict?: boolean,
): Pick<ChatCall, "tools" | "tool_choice" | "response_format"> {
  if (method === "functionCalling") {
    const fn = {
      name: prepared.name,
      ...(prepared.description === undefined ? {} : { description: prepared.description }),
      parameters: prepared.jsonSchema,
    };
    return {
      tools: [{ type: "function", function: fn }],
      tool_choice: { type: "function", function: { name: prepared.name } },
    };
  }
  if (method === "jsonMode") return { response_format: { type: "json_object" } };
  if (method === "jsonSchema") {
    return {
      response_format: {
        type: "json_schema",
        json_schema: { name: prepared.name, schema: prepared.original, ...(strict === undefined ? {} : { strict }) },
      },
    };
  }
  throw new ParameterError(
    `Structured output method "${String(method)}" is not known. Use functionCalling, jsonMode or jsonSchema.`,
  );
}

/** What a reply answered for the schema: a forced tool call's arguments or the reply's JSON text. */
export interface StructuredAnswer {
  readonly raw: string;
  /** The tool call's arguments (functionCalling), or undefined when the model did not call it. */
  readonly arguments?: Record<string, unknown>;
  /** Why the tool call cannot be used, when it came with bad arguments. */
  readonly invalid?: string;
}

/** Takes the structured value out of what a reply answered and checks it against the schema. */
export function parseStructured<T>(
  answer: StructuredAnswer,
  prepared: PreparedSchema,
  method: StructuredOutputMethod,
  model: string,
): T {
  let value: unknown;
  if (method === "functionCalling") {
    if (answer.arguments === undefined) {
      throw new StructuredOutputError(
        `${model} did not answer with the "${prepared.name}" structure${answer.invalid === undefined ? "" : ` (${answer.invalid})`}. ` +
          "Try again, raise maxTokens if the reply was cut, or simplify the schema.",
        { raw: answer.raw },
      );
    }
    value = prepared.wrapped ? answer.arguments.value : answer.arguments;
  } else {
    try {
      value = JSON.parse(stripFence(answer.raw));
    } catch {
      throw new StructuredOutputError(
        `${model} did not answer with JSON: ${clip(answer.raw)}. Use method "functionCalling", or ask for JSON in the prompt.`,
        { raw: answer.raw },
      );
    }
  }
  const checked = prepared.validate(value);
  if (!checked.ok) {
    throw new StructuredOutputError(
      `The reply of ${model} does not match the schema "${prepared.name}": ${checked.problems.join("; ")}. Reply: ${clip(answer.raw)}`,
      { raw: answer.raw },
    );
  }
  return checked.value as T;
}

/** The structured value of a core reply. */
export function parseStructuredReply<T>(
  reply: ChatReply,
  prepared: PreparedSchema,
  method: StructuredOutputMethod = "functionCalling",
): T {
  if (method !== "functionCalling")
    return parseStructured<T>({ raw: reply.content }, prepared, method, reply.servedModel);
  const call = reply.toolCalls.find((candidate) => candidate.name === prepared.name);
  const invalid = reply.invalidToolCalls.find((candidate) => candidate.name === prepared.name);
  const answer: StructuredAnswer = call
    ? { raw: JSON.stringify(call.arguments), arguments: call.arguments }
    : { raw: invalid?.arguments ?? reply.content, ...(invalid === undefined ? {} : { invalid: invalid.error }) };
  return parseStructured<T>(answer, prepared, method, reply.servedModel);
}

type SafeParse = (value: unknown) => {
  success: boolean;
  data?: unknown;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
};

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
    const result = schema["~standard"].validate(value) as {
      value?: unknown;
      issues?: { message: string; path?: readonly unknown[] }[];
    };
    if (result instanceof Promise)
      throw new ParameterError("Asynchronous schema validation is not supported for structured output.");
    if (!result.issues) return { ok: true, value: result.value };
    return {
      ok: false,
      problems: result.issues.map((issue) => `at ${pathOf((issue.path ?? []).map(keyOf))}: ${issue.message}`),
    };
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

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
