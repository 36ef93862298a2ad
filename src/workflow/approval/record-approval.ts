import { userInfo } from "node:os";
import path from "node:path";
import { prepareSchema } from "../../chat/prepare-schema.js";
import { ConfigError } from "../../errors.js";
import type { ApprovalDecision, ApprovalRequest } from "../run/journal-records.js";
import { Replay } from "../run/replay.js";
import { RunDirLock } from "../run/run-dir-lock.js";
import { RunJournal } from "../run/run-journal.js";
import { JOURNAL_FILE } from "../run/run-workflow.js";

/** An answer to one approval step of a run. */
export interface ApprovalAnswer {
  /** The step's id (`sign-off`), or a step instance's key (`posters[2].check`). */
  readonly step: string;
  /** The map item, when the step waits once per item. */
  readonly item?: number;
  readonly approved: boolean;
  readonly note?: string;
  /** The reply, checked against the step's `input` schema. */
  readonly input?: unknown;
  /** Who answers. Default: the user's login name. */
  readonly by?: string;
}

/** The answer as journaled, with the question it answers (an agent's tool call names the call). */
export type RecordedApproval = ApprovalDecision & { readonly request: ApprovalRequest };

/**
 * Journals the answer to an approval step a run waits on (one line, fsynced), for the next resume to
 * act on. Refuses an unknown step, a question already answered or not asked, and a reply that does
 * not fit the step's `input` schema, naming what would be accepted.
 */
export async function recordApproval(runDir: string, answer: ApprovalAnswer): Promise<RecordedApproval> {
  // A live run appends too: the answer goes in once it has ended (waiting) or died.
  const lock = await RunDirLock.acquire(runDir, {
    takenHint: "Answer once it has stopped to wait (svc-flow runs shows it as waiting).",
  });
  try {
    return await recordOwned(runDir, answer);
  } finally {
    await lock.release();
  }
}

async function recordOwned(runDir: string, answer: ApprovalAnswer): Promise<RecordedApproval> {
  const journalPath = path.join(runDir, JOURNAL_FILE);
  const { request, ...decision } = decideApproval(await Replay.read(journalPath), runDir, answer);
  const journal = await RunJournal.open(journalPath);
  try {
    await journal.append(decision);
  } finally {
    await journal.close();
  }
  return { ...decision, request };
}

/**
 * The decision `answer` makes on the question of `replay`'s journal it names (`where` names the run
 * in errors), not yet journaled. Refuses an unknown step, a question already answered or not asked,
 * and a reply that does not fit the step's `input` schema.
 */
export function decideApproval(replay: Replay, where: string, answer: ApprovalAnswer): RecordedApproval {
  const request = findRequest(replay, where, answer);
  if (answer.input !== undefined && request.input !== undefined) {
    const checked = prepareSchema(request.input).validate(answer.input);
    if (!checked.ok) {
      throw new ConfigError(
        `The reply to ${request.key} does not fit its input schema: ${checked.problems.join("; ")}. Expected JSON matching ${JSON.stringify(request.input)}.`,
        {
          code: "invalid_approval_input",
        },
      );
    }
  }
  const decision: ApprovalDecision = {
    type: "approval-decided",
    key: request.key,
    approved: answer.approved,
    ...(answer.input === undefined ? {} : { input: answer.input }),
    ...(answer.note === undefined ? {} : { note: answer.note }),
    by: answer.by ?? userName(),
    at: new Date().toISOString(),
  };
  return { ...decision, request };
}

function findRequest(replay: Replay, runDir: string, answer: ApprovalAnswer): ApprovalRequest {
  const open = replay.waitingApprovals();
  const waitingList = open.length === 0 ? "" : ` It waits on: ${open.map((request) => request.key).join(", ")}.`;
  const asked = [...replay.approvalRequests.values()].filter((request) => matches(request, answer));
  if (asked.length === 0) {
    if (open.length === 0) {
      throw new ConfigError(
        `${runDir} is not waiting for a decision${replay.finished ? ` (it ended ${replay.finished.status})` : ""}; there is nothing to approve.`,
        { code: "not_waiting" },
      );
    }
    const which = answer.item === undefined ? `"${answer.step}"` : `"${answer.step}" item ${answer.item}`;
    throw new ConfigError(`${runDir} has no approval step ${which} waiting.${waitingList}`, { code: "unknown_step" });
  }
  const pending = asked.filter((request) => !replay.approvalDecisions.has(request.key));
  if (pending.length === 0) {
    const decided = replay.approvalDecisions.get(asked[0]!.key)!;
    throw new ConfigError(
      `${asked[0]!.key} was already ${decided.approved ? "approved" : "rejected"} by ${decided.by} at ${decided.at}; an answer is final.${waitingList}`,
      { code: "not_waiting" },
    );
  }
  if (pending.length > 1) {
    const items = pending.map((request) => /\[(\d+)\]\.[^.[\]]+$/.exec(request.key)?.[1] ?? request.key);
    throw new ConfigError(
      `"${answer.step}" waits once per map item (${items.join(", ")}); answer one at a time with --item N.`,
      { code: "invalid_parameter" },
    );
  }
  return pending[0]!;
}

// An agent's tool call is asked under its own key (`review@2/call_1`) and answered by its step's id or key.
function matches(request: ApprovalRequest, answer: ApprovalAnswer): boolean {
  const step = request.toolCall?.step ?? request.key;
  if (request.key === answer.step || step === answer.step) return answer.item === undefined;
  if (request.id !== answer.step) return false;
  return answer.item === undefined || step.endsWith(`[${answer.item}].${request.id}`);
}

function userName(): string {
  try {
    return userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}
