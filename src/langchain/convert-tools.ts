import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import { ParameterError } from "../errors.js";
import type { ChatRequest, Tool, ToolChoice } from "../gateway/wire.js";
import { toJsonSchema } from "../chat/json-schema.js";
import { checkFunctionName, wireTool } from "../chat/wire-tool.js";

// Tools toWireTool made: `bindTools` converts once, and every call passes the same objects back.
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
    const name = checkFunctionName(fn.name);
    return {
      type: "function",
      function: {
        ...fn,
        name,
        ...(fn.parameters === undefined ? {} : { parameters: toJsonSchema(fn.parameters, `tool "${name}"`) }),
      },
    };
  }
  return wireTool({
    name: record.name as string,
    description: record.description as string | undefined,
    schema: record.schema ?? record.parameters,
  });
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

/** A response format whose JSON Schema may be a zod schema (agents pass one), as the wire's. */
export function toJsonSchemaFormat(
  format: ChatRequest["response_format"] & { json_schema?: { schema?: unknown } },
): ChatRequest["response_format"] {
  const schema = format?.json_schema?.schema;
  if (format === undefined || schema === undefined) return format;
  return { ...format, json_schema: { ...format.json_schema, schema: toJsonSchema(schema, "response_format") } };
}
