import { SvcFlowError } from "../../src/errors.js";

/** A LangChain message as plain JSON (`mapChatMessagesToStoredAgentMessages`), as a journal keeps it. */
export interface StoredAgentMessage {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/**
 * Where a durable agent keeps its finished work as it goes: each model turn (the assistant message
 * with its tool calls and usage) and each tool result. A run given the journal of an earlier,
 * interrupted run takes those from it instead of calling the model or the tool again.
 */
export interface AgentJournal {
  /** Model turn `turn` (1-based), as an earlier run journaled it. */
  turn(turn: number): StoredAgentMessage | undefined;
  /** Journals a model turn's reply; resolves once it is durable. */
  recordTurn(turn: number, message: StoredAgentMessage): Promise<void>;
  /** The result of the call `callId` of model turn `turn`, as an earlier run journaled it. */
  toolResult(turn: number, callId: string): StoredAgentMessage | undefined;
  /** Journals a tool call's result (or the error the model was given); resolves once it is durable. */
  recordToolResult(
    turn: number,
    call: { readonly id: string; readonly name: string },
    message: StoredAgentMessage,
  ): Promise<void>;
}

/** A tool call that needs a person's approval before it runs. */
export interface PendingToolCall {
  /** The model turn that made the call (1-based). */
  readonly turn: number;
  readonly id: string;
  /** The tool's name as the model calls it (an MCP tool's is `server__tool`). */
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** A person's answer to a tool call. */
export interface ToolDecision {
  readonly approved: boolean;
  /** Why, in their words; a rejection's note goes back to the model. */
  readonly note?: string;
  readonly by?: string;
}

/** Asks a person about a tool call: inline (a terminal's y/n), or by journaling the question and throwing ApprovalPending. */
export type ToolApprover = (call: PendingToolCall, signal?: AbortSignal) => Promise<ToolDecision>;

/** The run cannot go on until a person answers a tool call (`svc-flow approve`): it stops, waiting, not failed. */
export class ApprovalPending extends SvcFlowError {
  readonly call: PendingToolCall;

  constructor(call: PendingToolCall) {
    super("approval_pending", `The call of ${call.name} (model turn ${call.turn}) waits for a person's approval.`, {
      retryable: false,
    });
    this.call = call;
  }
}

/** The text a model gets in place of a rejected call's result. */
export function rejectionText(decision: ToolDecision): string {
  const by = decision.by === undefined ? "The user" : `The user (${decision.by})`;
  const note = decision.note === undefined || decision.note === "" ? "" : `: ${decision.note}`;
  return `${by} rejected this call; it was not run${note}. Do not call it again with the same arguments; go on without it or do what the note asks.`;
}
