import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage } from "@langchain/core/messages";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { ParameterError, StructuredOutputError } from "../errors.js";
import type { Tool } from "../gateway/wire.js";
import { toJsonSchema } from "../chat/json-schema.js";
import { prepareSchema, type PreparedSchema } from "../chat/prepare-schema.js";

/** How structured output is asked for: a forced tool call (default), JSON mode, or a JSON Schema
 * response format. */
export type StructuredOutputMethod = "functionCalling" | "jsonMode" | "jsonSchema";

/** What a model must offer for structured output (ChatGateway implements it). */
export interface StructuredOutputHost {
  withConfig(config: Record<string, unknown>): Runnable<BaseLanguageModelInput, BaseMessage>;
}

/** A reply with its parse, as `includeRaw: true` returns it. */
export interface RawAndParsed<T> {
  raw: BaseMessage;
  parsed: T | null;
  parsingError?: StructuredOutputError;
}

/** Binds `model` so it answers in the schema's shape, then parses and validates the reply. */
export function structuredOutput<T>(
  model: StructuredOutputHost,
  schema: unknown,
  config: { name?: string; method?: string; includeRaw?: boolean; strict?: boolean } = {},
): Runnable<BaseLanguageModelInput, T | RawAndParsed<T>> {
  const prepared = prepareSchema(schema, config.name);
  const method = (config.method ?? "functionCalling") as StructuredOutputMethod;
  let bound: Runnable<BaseLanguageModelInput, BaseMessage>;
  if (method === "functionCalling") {
    const tool: Tool = {
      type: "function",
      function: {
        name: prepared.name,
        ...(prepared.description === undefined ? {} : { description: prepared.description }),
        parameters: prepared.jsonSchema,
      },
    };
    bound = model.withConfig({ tools: [tool], tool_choice: prepared.name, ls_structured_output_format: { kwargs: { method }, schema: prepared.jsonSchema } });
  } else if (method === "jsonMode") {
    bound = model.withConfig({ response_format: { type: "json_object" } });
  } else if (method === "jsonSchema") {
    const jsonSchema = prepared.wrapped ? toJsonSchema(schema, "the structured output") : prepared.jsonSchema;
    bound = model.withConfig({
      response_format: {
        type: "json_schema",
        json_schema: { name: prepared.name, schema: jsonSchema, ...(config.strict === undefined ? {} : { strict: config.strict }) },
      },
    });
  } else {
    throw new ParameterError(`Structured output method "${method}" is not known. Use functionCalling, jsonMode or jsonSchema.`);
  }
  const parse = (message: BaseMessage): T => parseReply<T>(message, prepared, method);
  const parser: Runnable<BaseMessage, T | RawAndParsed<T>> = config.includeRaw
    ? RunnableLambda.from((message: BaseMessage): RawAndParsed<T> => {
        try {
          return { raw: message, parsed: parse(message) };
        } catch (error) {
          if (!(error instanceof StructuredOutputError)) throw error;
          return { raw: message, parsed: null, parsingError: error };
        }
      })
    : RunnableLambda.from((message: BaseMessage): T | RawAndParsed<T> => parse(message));
  return bound.pipe(parser).withConfig({ runName: "StructuredOutput" });
}

/** Takes the structured value out of a reply and checks it against the schema. */
export function parseReply<T>(message: BaseMessage, prepared: PreparedSchema, method: StructuredOutputMethod): T {
  const metadata = message.response_metadata as Record<string, unknown> | undefined;
  const model = String(metadata?.model_name ?? "the model");
  let raw: string;
  let value: unknown;
  if (method === "functionCalling") {
    const ai = AIMessage.isInstance(message) ? message : undefined;
    const call = ai?.tool_calls?.find((candidate) => candidate.name === prepared.name);
    if (!call) {
      const invalid = ai?.invalid_tool_calls?.find((candidate) => candidate.name === prepared.name);
      raw = invalid?.args ?? message.text;
      throw new StructuredOutputError(
        `${model} did not answer with the "${prepared.name}" structure${invalid ? ` (${invalid.error ?? "bad arguments"})` : ""}. ` +
          "Try again, raise maxTokens if the reply was cut, or simplify the schema.",
        { raw },
      );
    }
    raw = JSON.stringify(call.args);
    value = prepared.wrapped ? call.args.value : call.args;
  } else {
    raw = message.text;
    try {
      value = JSON.parse(stripFence(raw));
    } catch {
      throw new StructuredOutputError(
        `${model} did not answer with JSON: ${clip(raw)}. Use method "functionCalling", or ask for JSON in the prompt.`,
        { raw },
      );
    }
  }
  const checked = prepared.validate(value);
  if (!checked.ok) {
    throw new StructuredOutputError(
      `The reply of ${model} does not match the schema "${prepared.name}": ${checked.problems.join("; ")}. ` +
        `Reply: ${clip(raw)}`,
      { raw },
    );
  }
  return checked.value as T;
}

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
