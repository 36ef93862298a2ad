import type { ChatRequest, Tool, ToolCall } from "../../gateway/wire.js";
import type { Conversation } from "./conversation.js";
import { readFacts, type PromptFacts } from "./prompt-facts.js";
import { callItems, FIT_THRESHOLD, scoreTools } from "./score-tools.js";
import type { CallItem } from "./suggest-values.js";

/** One call the model decided to make. */
export interface PlannedCall {
  readonly tool: Tool;
  /** What this call is about when the prompt asked for several of a kind. */
  readonly item?: CallItem;
}

/** At most this many calls in one reply. */
const MAX_PARALLEL_CALLS = 6;
/** Under `auto`, tool rounds after one user message stop here, so a client loop always ends. */
const MAX_TOOL_ROUNDS = 3;

/**
 * The tool calls the model makes, honouring every `tool_choice` form: `none` never calls, a
 * named function always calls that one, `required` always calls (the best fit when nothing
 * fits), `auto` calls the tools the prompt fits. After tool results `auto` calls only what the
 * user asked for and was not called yet (one call at a time when `parallel_tool_calls` is false).
 */
export function planToolCalls(request: Pick<ChatRequest, "tools" | "tool_choice" | "parallel_tool_calls">, conversation: Conversation): PlannedCall[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? "auto";
  if (tools.length === 0 || choice === "none") return [];
  const facts = readFacts(conversation.userText);
  const answering = conversation.lastRole === "tool";
  const bound = (calls: PlannedCall[]) => calls.slice(0, request.parallel_tool_calls === false ? 1 : MAX_PARALLEL_CALLS);

  if (typeof choice === "object") {
    const tool = tools.find((candidate) => candidate.function.name === choice.function.name);
    if (!tool) return [];
    const calls = callsFor(tool, facts);
    const remaining = calls.filter((call) => !wasMade(call, conversation.callsSinceUser));
    return bound(remaining.length > 0 ? remaining : calls);
  }

  const scores = scoreTools(tools, facts);
  const best = Math.max(...scores);
  const fitting = tools.filter((_, index) => scores[index]! >= FIT_THRESHOLD && scores[index]! >= best / 2);
  const planned = fitting.flatMap((tool) => callsFor(tool, facts));
  const fallback = () => callsFor(tools[scores.indexOf(best)]!, facts);

  if (answering) {
    const remaining = planned.filter((call) => !wasMade(call, conversation.callsSinceUser));
    if (choice === "required") return bound(remaining.length > 0 ? remaining : fallback());
    return conversation.toolRounds < MAX_TOOL_ROUNDS ? bound(remaining) : [];
  }
  if (choice === "required") return bound(planned.length > 0 ? planned : fallback());
  // A conversation that ends with the assistant's own words is a continuation, not a request.
  return conversation.lastRole === "assistant" ? [] : bound(planned);
}

function callsFor(tool: Tool, facts: PromptFacts): PlannedCall[] {
  const items = callItems(tool, facts);
  return items.length > 1 ? items.map((item) => ({ tool, item })) : [{ tool }];
}

function wasMade(call: PlannedCall, made: readonly ToolCall[]): boolean {
  return made.some(
    (previous) =>
      previous.function.name === call.tool.function.name &&
      (call.item === undefined || previous.function.arguments.toLowerCase().includes(call.item.value.toLowerCase())),
  );
}
