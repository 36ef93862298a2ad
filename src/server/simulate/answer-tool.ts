import type { Tool } from "../../gateway/wire.js";
import { fieldName } from "./suggest-values.js";

const ANSWER_NAME = /(^|_)(final|answer|answers|respond|response|extract|submit|structured)(_|$|\d)/;
const ANSWER_DESCRIPTION =
  /\b(final (answer|response|result)|structured (output|response|answer)|respond to the user|answer to the user|extract(ing)? structured)\b/i;

/**
 * True for a tool whose arguments are the answer itself (LangChain's `responseFormat` tool,
 * `final_answer`, `extract-1`...): a model calls it last, once it has what it needs.
 */
export function isAnswerTool(tool: Tool): boolean {
  return ANSWER_NAME.test(fieldName(tool.function.name)) || ANSWER_DESCRIPTION.test(tool.function.description ?? "");
}
