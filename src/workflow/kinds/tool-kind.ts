import { z } from "zod";
import { ConfigError } from "../../errors.js";
import type { ToolStep } from "../schema/step-schemas.js";
import { parseStepInput } from "./parse-step-input.js";
import type { LeafContext } from "./step-kind.js";

const toolInputSchema = z.object({
  tool: z.string(),
  input: z.record(z.string(), z.unknown()).optional(),
});

/**
 * `uses: tool`: calls one tool from tools/ with `input` as its arguments (checked by the tool's own
 * schema). Output: what the tool returns; text that is a JSON object or array is parsed.
 */
export async function runToolStep(context: LeafContext<ToolStep>): Promise<unknown> {
  const input = parseStepInput(toolInputSchema, context.input, context.key);
  const [tool] = context.services.tools([input.tool], context.toolContext);
  if (tool === undefined)
    throw new ConfigError(`Step "${context.key}": the tool "${input.tool}" could not be created.`);
  const value: unknown = await tool.invoke(input.input ?? {}, { signal: context.signal });
  return typeof value === "string" ? parseStructured(value) : value;
}

// Tools answer in text; a JSON object or array is more useful to later expressions as a value.
function parseStructured(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}
