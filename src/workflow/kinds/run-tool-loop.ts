import type { ChatCall } from "../../chat/call-chat.js";
import type { ChatReply } from "../../chat/chat-reply.js";
import { wireTool, type ToolDefinition } from "../../chat/wire-tool.js";
import { SvcFlowError } from "../../errors.js";
import type { Message } from "../../gateway/wire.js";

/** A tool a step can run: its definition, and a way to call it. The tools of tools/ are such. */
export interface RunnableTool extends ToolDefinition {
  invoke(input: Record<string, unknown>, options: { signal: AbortSignal }): Promise<unknown>;
}

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
  chat: (call: Omit<ChatCall, "stream">) => Promise<ChatReply>,
  call: Omit<ChatCall, "stream" | "tools">,
  tools: readonly RunnableTool[],
  options: { readonly maxRounds: number; readonly signal: AbortSignal },
): Promise<ToolLoopResult> {
  const wire = tools.map(wireTool);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const conversation: Message[] = [...call.messages];
  const records: ToolCallRecord[] = [];
  for (let round = 0; round <= options.maxRounds; round++) {
    const reply = await chat({ ...call, messages: [...conversation], tools: wire });
    if (reply.toolCalls.length === 0) return { text: reply.content, model: reply.model, toolCalls: records };
    if (round === options.maxRounds) break;
    conversation.push({
      role: "assistant",
      content: reply.content.length > 0 ? reply.content : null,
      // Unknown fields of a call (a thought signature) go back with it.
      tool_calls: reply.toolCalls.map((toolCall) => ({
        ...reply.toolCallExtras[toolCall.id],
        id: toolCall.id,
        type: "function" as const,
        function: { name: toolCall.name, arguments: JSON.stringify(toolCall.arguments) },
      })),
    });
    for (const toolCall of reply.toolCalls) {
      const tool = byName.get(toolCall.name);
      let result: string;
      let failed = false;
      try {
        if (tool === undefined)
          throw new Error(`There is no tool "${toolCall.name}". Tools: ${[...byName.keys()].join(", ")}.`);
        const value: unknown = await tool.invoke(toolCall.arguments, { signal: options.signal });
        result = typeof value === "string" ? value : JSON.stringify(value);
      } catch (error) {
        if (options.signal.aborted) throw error;
        failed = true;
        result = `Error: ${error instanceof Error ? error.message : String(error)}`;
      }
      records.push({ name: toolCall.name, arguments: toolCall.arguments, result, failed });
      conversation.push({ role: "tool", tool_call_id: toolCall.id, content: result });
    }
  }
  throw new SvcFlowError(
    "tool_loop_limit",
    `The model was still calling tools after ${options.maxRounds} rounds (${records.length} calls). Raise maxToolRounds/maxSteps, or make the prompt more direct.`,
  );
}
