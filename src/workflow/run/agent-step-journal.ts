import { ApprovalPending, type AgentJournal, type ToolApprover } from "../../../agents/support/agent-journal.js";
import type { WorkflowEvent } from "../workflow-event.js";
import type { ApprovalRequest } from "./journal-records.js";
import { agentCallKey, type Replay } from "./replay.js";
import type { JournalSink } from "./run-journal.js";
import type { StepReport } from "./step-report.js";

/** What an agent step's journal and approver need from the run. */
export interface AgentStepRun {
  readonly journal: JournalSink;
  readonly replay: Replay;
  /** Approval questions the run waits on when it ends. */
  readonly waiting: ApprovalRequest[];
  readonly emit: (event: WorkflowEvent) => void;
}

/** The run journal as an agent step's turn log: its turns and tool results under the step's key. */
export function agentStepJournal(run: AgentStepRun, key: string, report: StepReport): AgentJournal {
  const turns = run.replay.agentTurns.get(key);
  const results = run.replay.agentToolResults.get(key);
  return {
    turn: (turn) => turns?.get(turn)?.message,
    recordTurn: (turn, message) => {
      const requestId = (message.data.response_metadata as { request_id?: unknown } | undefined)?.request_id;
      const costYuan = typeof requestId === "string" ? report.costOf(requestId) : undefined;
      return run.journal.append({
        type: "agent-turn",
        key,
        turn,
        message,
        ...(typeof requestId === "string" ? { requestId } : {}),
        ...(costYuan === undefined ? {} : { costYuan }),
        at: new Date().toISOString(),
      });
    },
    toolResult: (turn, callId) => results?.get(agentCallKey(turn, callId))?.message,
    recordToolResult: (turn, call, message) =>
      run.journal.append({
        type: "agent-tool-result",
        key,
        turn,
        callId: call.id,
        name: call.name,
        message,
        at: new Date().toISOString(),
      }),
  };
}

/** The approval key of an agent's tool call: `review@2/call_1` (step instance, model turn, call id). */
export function toolApprovalKey(stepKey: string, turn: number, callId: string): string {
  return `${stepKey}@${turn}/${callId}`;
}

/**
 * The approver of an agent step's tool calls: a call answered in the journal (`svc-flow approve`)
 * gets that answer; otherwise its question is journaled (once) and the step stops with
 * ApprovalPending, so the run ends waiting. One question per step at a time: calls of the same turn
 * are asked one after another, each on its own resume.
 */
export function agentStepApprover(run: AgentStepRun, key: string): ToolApprover {
  const id = key.slice(key.lastIndexOf(".") + 1);
  let asked = false;
  return async (call) => {
    const approvalKey = toolApprovalKey(key, call.turn, call.id);
    const decision = run.replay.approvalDecisions.get(approvalKey);
    if (decision !== undefined) {
      return {
        approved: decision.approved,
        by: decision.by,
        ...(decision.note === undefined ? {} : { note: decision.note }),
      };
    }
    if (!asked) {
      asked = true;
      let request = run.replay.approvalRequests.get(approvalKey);
      if (request === undefined) {
        request = {
          type: "approval-requested",
          key: approvalKey,
          id,
          prompt: `Let ${key} call ${call.name}?`,
          show: { tool: call.name, arguments: call.arguments },
          at: new Date().toISOString(),
          toolCall: { step: key, turn: call.turn, id: call.id, name: call.name, arguments: call.arguments },
        } satisfies ApprovalRequest;
        await run.journal.append(request);
      }
      run.waiting.push(request);
      run.emit({ type: "step-waiting", key: approvalKey, id, prompt: request.prompt });
    }
    throw new ApprovalPending(call);
  };
}
