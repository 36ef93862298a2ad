import type { ChatRequest, Tool, ToolCall } from "../../gateway/wire.js";
import { isAnswerTool } from "./answer-tool.js";
import type { Conversation } from "./conversation.js";
import { readFacts, type PromptFacts } from "./prompt-facts.js";
import { callItems, FIT_THRESHOLD, scoreTools } from "./score-tools.js";
import { fieldName, FIELD_KINDS, type CallItem } from "./suggest-values.js";
import { findTableColumn } from "./table-column.js";

/** One call the model decided to make. */
export interface PlannedCall {
  readonly tool: Tool;
  /** What this call is about when the prompt asked for several of a kind. */
  readonly item?: CallItem;
  /** The tool's arguments are the answer itself, filled from the whole conversation. */
  readonly answer?: boolean;
  /** One of several candidates, best first: only the first that repeats no earlier call is made. */
  readonly candidate?: boolean;
}

/** At most this many calls in one reply. */
const MAX_PARALLEL_CALLS = 6;
/** Under `auto`, tool rounds after one user message stop here, so a client loop always ends. */
const MAX_TOOL_ROUNDS = 3;

/**
 * The tool calls the model makes, honouring every `tool_choice` form: `none` never calls, a
 * named function always calls that one, `required` always calls, `auto` calls the tools the
 * prompt fits. A tool whose arguments are the answer (a structured-answer tool) comes last:
 * under `required`, once the work is done, the model answers with it rather than repeating a
 * call. After tool results `auto` calls only what the user asked for and was not called yet,
 * then answers in text (one call at a time when `parallel_tool_calls` is false).
 */
export function planToolCalls(
  request: Pick<ChatRequest, "tools" | "tool_choice" | "parallel_tool_calls">,
  conversation: Conversation,
): PlannedCall[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? "auto";
  if (tools.length === 0 || choice === "none") return [];
  const facts = readFacts(conversation.userText);
  const answering = conversation.lastRole === "tool";
  const bound = (calls: PlannedCall[]) =>
    calls.slice(0, request.parallel_tool_calls === false ? 1 : MAX_PARALLEL_CALLS);

  if (typeof choice === "object") {
    const tool = tools.find((candidate) => candidate.function.name === choice.function.name);
    if (!tool) return [];
    const calls = callsFor(tool, facts, isAnswerTool(tool));
    const remaining = calls.filter((call) => !wasMade(call, conversation.callsSinceUser));
    return bound(remaining.length > 0 ? remaining : calls);
  }

  const scores = scoreTools(tools, facts);
  const ranked = tools.map((tool, index) => ({ tool, score: scores[index]! })).sort((a, b) => b.score - a.score);
  const answerTools = ranked.filter(({ tool }) => isAnswerTool(tool)).map(({ tool }) => tool);
  const work = ranked.filter(({ tool }) => !answerTools.includes(tool));
  const fits = (entries: typeof ranked) =>
    entries.filter(({ score }) => score >= FIT_THRESHOLD && score >= (entries[0]?.score ?? 0) / 2);
  const fittingWork = fits(work).flatMap(({ tool }) => callsFor(tool, facts, false));
  // An answer tool is planned first only when the prompt needs no other tool ("extract the names from...").
  const planned =
    fittingWork.length > 0
      ? fittingWork
      : fits(ranked)
          .slice(0, 1)
          .flatMap(({ tool }) => callsFor(tool, facts, true));

  if (answering) {
    const sum = tableSumCall(tools, conversation);
    if (sum) return [sum];
    const remaining = planned.filter((call) => !call.answer && !wasMade(call, conversation.callsSinceUser));
    if (choice === "required")
      return remaining.length > 0 ? bound(remaining) : nextCandidates(ranked, answerTools, conversation.callsSinceUser);
    return conversation.toolRounds < MAX_TOOL_ROUNDS ? bound(remaining) : [];
  }
  if (choice === "required") {
    if (planned.length > 0) return bound(planned);
    // Nothing fits well: a work tool the prompt touches at all, else the answer itself.
    const first = (work[0] && work[0].score > 0 ? work[0].tool : answerTools[0]) ?? ranked[0]!.tool;
    return callsFor(first, facts, answerTools.includes(first)).slice(0, 1);
  }
  // A conversation that ends with the assistant's own words is a continuation, not a request.
  return conversation.lastRole === "assistant" ? [] : bound(planned);
}

// Under `required` with the work done: a tool not called yet, an answer tool first; repeats last.
function nextCandidates(
  ranked: ReadonlyArray<{ tool: Tool }>,
  answerTools: readonly Tool[],
  made: readonly ToolCall[],
): PlannedCall[] {
  const called = (tool: Tool) => made.some((call) => call.function.name === tool.function.name);
  const order = [
    ...answerTools.filter((tool) => !called(tool)),
    ...ranked.map(({ tool }) => tool).filter((tool) => !called(tool) && !answerTools.includes(tool)),
    ...answerTools,
    ...ranked.map(({ tool }) => tool),
  ];
  return [...new Set(order)].map((tool) => ({ tool, answer: answerTools.includes(tool), candidate: true }));
}

// A table a tool returned is added up with the calculator, once, before the model answers.
function tableSumCall(tools: readonly Tool[], conversation: Conversation): PlannedCall | undefined {
  const calculator = tools.find((tool) =>
    Object.keys((tool.function.parameters?.properties ?? {}) as Record<string, unknown>).some((field) =>
      FIELD_KINDS.expression.test(fieldName(field)),
    ),
  );
  if (!calculator || conversation.callsSinceUser.some((call) => call.function.name === calculator.function.name))
    return undefined;
  for (const result of conversation.toolResults) {
    const column = findTableColumn(result.content, conversation.userText);
    if (column) return { tool: calculator, item: { kind: "expression", value: column.sumExpression } };
  }
  return undefined;
}

function callsFor(tool: Tool, facts: PromptFacts, answer: boolean): PlannedCall[] {
  if (answer) return [{ tool, answer }];
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
