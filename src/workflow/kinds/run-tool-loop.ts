import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ChatGateway } from "../../langchain/chat-gateway.js";
import { SvcFlowError } from "../../errors.js";

/** A tool call the model made, as a step's output lists it. */
export interface ToolCallRecord {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The tool's answer, or its error message (sent back to the model either way). */
  readonly result: string;
  readonly failed: boolean;
}

/** The end of a tool loop: the model's final answer and the calls it made on the way. */
export interface ToolLoopResult {
  readonly text: string;
  readonly model?: string;
  readonly toolCalls: readonly ToolCallRecord[];
}

/**
 * Calls the model, runs the tools it asks for, sends the results back, and repeats until it answers
 * without tool calls. A tool's error goes back to the model as the result (it can recover); a model
 * still calling tools after `maxRounds` is an error, so a loop always ends.
 */
export async function runToolLoop(
  model: ChatGateway,
  tools: readonly StructuredToolInterface[],
  messages: readonly BaseMessage[],
  options: { readonly maxRounds: number; readonly signal: AbortSignal },
): Promise<ToolLoopResult> {
  const bound = model.bindTools([...tools]);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const conversation = [...messages];
  const records: ToolCallRecord[] = [];
  for (let round = 0; round <= options.maxRounds; round++) {
    const reply = await bound.invoke(conversation, { signal: options.signal });
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return { text: reply.text, model: modelOf(reply), toolCalls: records };
    if (round === options.maxRounds) break;
    conversation.push(new AIMessage({ content: reply.content, tool_calls: calls, additional_kwargs: reply.additional_kwargs }));
    for (const call of calls) {
      const tool = byName.get(call.name);
      let result: string;
      let failed = false;
      try {
        if (tool === undefined) throw new Error(`There is no tool "${call.name}". Tools: ${[...byName.keys()].join(", ")}.`);
        const value: unknown = await tool.invoke(call.args, { signal: options.signal });
        result = typeof value === "string" ? value : JSON.stringify(value);
      } catch (error) {
        if (options.signal.aborted) throw error;
        failed = true;
        result = `Error: ${error instanceof Error ? error.message : String(error)}`;
      }
      records.push({ name: call.name, arguments: call.args, result, failed });
      conversation.push(new ToolMessage({ content: result, tool_call_id: call.id ?? call.name, name: call.name }));
    }
  }
  throw new SvcFlowError(
    "tool_loop_limit",
    `The model was still calling tools after ${options.maxRounds} rounds (${records.length} calls). Raise maxToolRounds/maxSteps, or make the prompt more direct.`,
  );
}

/** The catalogue id that served a reply (after any fallback). */
export function modelOf(message: BaseMessage): string | undefined {
  const model = (message.response_metadata as Record<string, unknown> | undefined)?.model;
  return typeof model === "string" ? model : undefined;
}
