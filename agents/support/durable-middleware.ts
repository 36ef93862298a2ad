import {
  AIMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
  type BaseMessage,
  type StoredMessage,
} from "@langchain/core/messages";
import type { createMiddleware as CreateMiddleware } from "langchain";
import { SvcFlowError } from "../../src/errors.js";
import { rejectionText, type AgentJournal, type StoredAgentMessage, type ToolApprover } from "./agent-journal.js";
import type { AgentEvent } from "./agent-events.js";
import { ReplayedModel } from "./replayed-model.js";
import { isFatalToolError, toolErrorMessage } from "./step-middleware.js";

/**
 * The middleware that makes an agent durable and asks before chosen tools run. With a journal, each
 * model turn's reply and each tool result is journaled as it completes; a turn or result the journal
 * already has is taken from it (the turn through a ReplayedModel, so LangChain's model node treats it
 * as a reply), so a resumed run pays for no turn and runs no tool twice. Calls of tools in
 * `needsApproval` go to `approver` first; a rejection goes back to the model as the tool's result.
 * It sits inside the step middleware, which then counts and reports replayed turns like new ones.
 */
export function createDurableMiddleware(
  createMiddleware: typeof CreateMiddleware,
  options: {
    readonly journal?: AgentJournal;
    readonly needsApproval: (toolName: string) => boolean;
    readonly approver?: ToolApprover;
    readonly emit: (event: AgentEvent) => void;
    readonly signal?: AbortSignal;
  },
) {
  const { journal } = options;
  let turns = 0;
  return createMiddleware({
    name: "SvcFlowDurable",
    wrapModelCall: async (request, handler) => {
      const turn = ++turns;
      const journaled = journal?.turn(turn);
      if (journaled !== undefined) {
        const message = restore(journaled);
        if (AIMessage.isInstance(message))
          return handler({ ...request, model: new ReplayedModel(message, request.model) });
      }
      const response = await handler(request);
      const reply = modelReplyOf(response);
      if (reply !== undefined) await journal?.recordTurn(turn, store(reply));
      return response;
    },
    wrapToolCall: async (request, handler) => {
      const turn = turns;
      const { toolCall } = request;
      const call = { id: toolCall.id ?? "", name: toolCall.name };
      const journaled = journal?.toolResult(turn, call.id);
      if (journaled !== undefined) {
        const message = restore(journaled);
        if (ToolMessage.isInstance(message)) return message;
      }
      let result: Awaited<ReturnType<typeof handler>> | undefined;
      if (options.needsApproval(call.name)) {
        if (options.approver === undefined) {
          throw new ApprovalUnavailable(call.name);
        }
        const decision = await options.approver({ turn, ...call, arguments: toolCall.args }, options.signal);
        options.emit({ type: "approval", step: turn, ...call, arguments: toolCall.args, ...decision });
        if (!decision.approved) {
          result = new ToolMessage({
            content: rejectionText(decision),
            tool_call_id: call.id,
            name: call.name,
            status: "error",
          });
        }
      }
      if (result === undefined) {
        try {
          result = await handler(request);
        } catch (error) {
          if (options.signal?.aborted === true || isFatalToolError(error)) throw error;
          // Journaled as the failure the model is given, so a resume does not run the call again.
          result = new ToolMessage({
            content: toolErrorMessage(error),
            tool_call_id: call.id,
            name: call.name,
            status: "error",
          });
        }
      }
      if (ToolMessage.isInstance(result)) await journal?.recordToolResult(turn, call, store(result));
      return result;
    },
  });
}

/** A tool needs approval, and the run has no one to ask (no terminal, no journal to wait on). */
export class ApprovalUnavailable extends SvcFlowError {
  constructor(tool: string) {
    super(
      "approval_unavailable",
      `${tool} needs a person's approval, and this run has no one to ask. Run it on a terminal (svc-flow agent asks y/n) or as a workflow step (svc-flow approve answers).`,
    );
  }
}

function store(message: BaseMessage): StoredAgentMessage {
  const stored = mapChatMessagesToStoredMessages([message])[0]!;
  return { type: stored.type, data: { ...stored.data } };
}

function restore(stored: StoredAgentMessage): BaseMessage | undefined {
  return mapStoredMessagesToChatMessages([stored as unknown as StoredMessage])[0];
}

// The model's own reply inside what the model node's handler returns: the message itself, or the
// first message of a structured-output update (the reply, then the messages LangChain adds to it).
function modelReplyOf(response: unknown): AIMessage | undefined {
  if (AIMessage.isInstance(response)) return response;
  const messages =
    (response as { messages?: unknown } | null)?.messages ??
    (response as { update?: { messages?: unknown } } | null)?.update?.messages;
  if (!Array.isArray(messages)) return undefined;
  const first: unknown = messages[0];
  return AIMessage.isInstance(first) ? first : undefined;
}
