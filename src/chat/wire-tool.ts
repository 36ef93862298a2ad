import { ParameterError } from "../errors.js";
import type { Tool } from "../gateway/wire.js";
import { toJsonSchema } from "./json-schema.js";

/** A tool as the model sees it: a name, what it does, and the schema of its input (zod, Standard
 * JSON Schema or JSON Schema). LangChain's tools have this shape. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly schema?: unknown;
}

/** A tool definition as a wire tool. */
export function wireTool(tool: ToolDefinition): Tool {
  if (typeof tool.name !== "string" || tool.name.length === 0)
    throw new ParameterError("Every tool needs a name (a non-empty string).");
  return {
    type: "function",
    function: {
      name: tool.name,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      parameters:
        tool.schema === undefined
          ? { type: "object", properties: {} }
          : toJsonSchema(tool.schema, `tool "${tool.name}"`),
    },
  };
}
