import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { StructuredOutputError } from "../errors.js";
import { checkFunctionName } from "../chat/wire-tool.js";
import {
  parseStructured,
  prepareSchema,
  structuredRequest,
  type PreparedSchema,
  type StructuredOutputMethod,
} from "../chat/prepare-schema.js";

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
  const prepared = prepareSchema(
    schema,
    config.name === undefined ? undefined : checkFunctionName(config.name, "structured output"),
  );
  const method = (config.method ?? "functionCalling") as StructuredOutputMethod;
  const request = structuredRequest(prepared, method, config.strict);
  const bound = model.withConfig(
    method === "functionCalling"
      ? {
          tools: request.tools,
          tool_choice: prepared.name,
          ls_structured_output_format: { kwargs: { method }, schema: prepared.jsonSchema },
        }
      : { response_format: request.response_format },
  );
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

/** Takes the structured value out of a reply message and checks it against the schema. */
export function parseReply<T>(message: BaseMessage, prepared: PreparedSchema, method: StructuredOutputMethod): T {
  const metadata = message.response_metadata as Record<string, unknown> | undefined;
  const model = String(metadata?.model_name ?? "the model");
  if (method !== "functionCalling") return parseStructured<T>({ raw: message.text }, prepared, method, model);
  const ai = AIMessage.isInstance(message) ? message : undefined;
  const call = ai?.tool_calls?.find((candidate) => candidate.name === prepared.name);
  if (call)
    return parseStructured<T>({ raw: JSON.stringify(call.args), arguments: call.args }, prepared, method, model);
  const invalid = ai?.invalid_tool_calls?.find((candidate) => candidate.name === prepared.name);
  const raw = invalid?.args ?? message.text;
  return parseStructured<T>(
    { raw, ...(invalid === undefined ? {} : { invalid: invalid.error ?? "bad arguments" }) },
    prepared,
    method,
    model,
  );
}
