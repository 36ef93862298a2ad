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

// The function names OpenAI and Anthropic accept (their APIs answer any other with a 400), so every
// family behind the gateway takes them.
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A tool (or structured-output) name the models take; any other is refused before sending. */
export function checkFunctionName(name: unknown, what = "tool"): string {
  if (typeof name !== "string" || name.length === 0)
    throw new ParameterError(`Every ${what} needs a name (a non-empty string).`);
  if (!FUNCTION_NAME.test(name)) {
    const fixed = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
    throw new ParameterError(
      `The ${what} name ${JSON.stringify(name)} cannot be sent: models take names of letters, digits, _ and - ` +
        `(at most 64). Rename it, for example to "${fixed}".`,
    );
  }
  return name;
}

/** A tool definition as a wire tool. */
export function wireTool(tool: ToolDefinition): Tool {
  return {
    type: "function",
    function: {
      name: checkFunctionName(tool.name),
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      parameters:
        tool.schema === undefined
          ? { type: "object", properties: {} }
          : toJsonSchema(tool.schema, `tool "${tool.name}"`),
    },
  };
}
