import { ApprovalRejectedError } from "../../errors.js";
import { approvalReadByCondition } from "../approval/approval-read-by-condition.js";
import { renderValue } from "../expression/index.js";
import { durationMs } from "../schema/common-schemas.js";
import type { ApprovalStep } from "../schema/step-schemas.js";
import type { StepNode } from "../step-graph.js";
import { WaitingError } from "./error-summary.js";
import type { ApprovalDecision, ApprovalRequest } from "./journal-records.js";
import { readKeys } from "./reuse-step.js";
import { expressionScope, type RunState, type Scope, type StepResult } from "./run-state.js";
import { stepKey } from "./step-key.js";

/** An approval step's output. */
export interface ApprovalOutput {
  readonly approved: boolean;
  /** The reply (`--input JSON`), checked against the step's `input` schema; null without one. */
  readonly input: unknown;
  /** The note (`--note TEXT`); null without one. */
  readonly note: string | null;
  /** Who answered: the user's name, or `timeout`. */
  readonly by: string;
  readonly at: string;
}

/**
 * `uses: approval`: the first time, journals the question (rendered) and throws WaitingError, so the
 * steps after it wait while independent ones go on; once `svc-flow approve` has journaled an answer
 * (or the timeout passed), finishes with it. A rejection fails the step (approval_rejected) unless
 * some step's `if:` reads this step, in which case the output carries `approved: false`.
 * Never taken from an earlier run: its step key covers the question and the answer.
 */
export async function runApproval(node: StepNode, scope: Scope, state: RunState, key: string): Promise<StepResult> {
  const step = node.step as ApprovalStep;
  const startedAt = new Date();
  const decision =
    state.replay.approvalDecisions.get(key) ??
    (await decideOnTimeout(state, key, startedAt)) ??
    (await ask(node, scope, state, key, startedAt));
  const output: ApprovalOutput = {
    approved: decision.approved,
    input: decision.input ?? null,
    note: decision.note ?? null,
    by: decision.by,
    at: decision.at,
  };
  if (!decision.approved && !approvalReadByCondition(state.workflow.definition, step.id)) {
    const why =
      decision.by === "timeout"
        ? "nobody answered before its timeout (onTimeout: reject)"
        : `it was rejected by ${decision.by}`;
    throw new ApprovalRejectedError(
      `Step "${key}" did not get its approval: ${why}${decision.note === undefined ? "" : `: ${decision.note}`}.`,
    );
  }
  const finishedAt = new Date();
  const request = state.replay.approvalRequests.get(key);
  const question = { prompt: request?.prompt, show: request?.show, input: step.with.input };
  const answer = { approved: decision.approved, input: decision.input };
  const approvalKey = stepKey({ kind: "approval", question, answer }, readKeys(step, scope));
  await state.journal.append({
    type: "step-finished",
    key,
    id: step.id,
    kind: "approval",
    output,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    attempts: 0,
    fallbacks: [],
    costYuan: 0,
    unpriced: false,
    stepKey: approvalKey,
  });
  state.emit({
    type: "step-finished",
    key,
    id: step.id,
    kind: "approval",
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    costYuan: 0,
    replayed: false,
  });
  return { output, key: approvalKey };
}

// The timeout is looked at whenever the run goes on (a resume); nothing runs in between.
async function decideOnTimeout(state: RunState, key: string, now: Date): Promise<ApprovalDecision | undefined> {
  const request = state.replay.approvalRequests.get(key);
  if (request?.timeoutAt === undefined || Date.parse(request.timeoutAt) > now.getTime()) return undefined;
  const decision: ApprovalDecision = {
    type: "approval-decided",
    key,
    approved: request.onTimeout === "approve",
    by: "timeout",
    at: now.toISOString(),
  };
  await state.journal.append(decision);
  return decision;
}

async function ask(node: StepNode, scope: Scope, state: RunState, key: string, now: Date): Promise<never> {
  const step = node.step as ApprovalStep;
  let request = state.replay.approvalRequests.get(key);
  if (request === undefined) {
    const rendered = renderValue(step.with, expressionScope(scope), [...node.path, "with"]) as ApprovalStep["with"];
    const timeout = rendered.timeout ?? step.with.timeout;
    request = {
      type: "approval-requested",
      key,
      id: step.id,
      prompt: String(rendered.prompt),
      ...(rendered.show === undefined ? {} : { show: rendered.show }),
      ...(step.with.input === undefined ? {} : { input: step.with.input }),
      at: now.toISOString(),
      ...(timeout === undefined
        ? {}
        : {
            timeoutAt: new Date(now.getTime() + durationMs(timeout)).toISOString(),
            onTimeout: step.with.onTimeout ?? "reject",
          }),
    } satisfies ApprovalRequest;
    await state.journal.append(request);
  }
  state.waiting.push(request);
  state.emit({ type: "step-waiting", key, id: step.id, prompt: request.prompt });
  throw new WaitingError(key);
}
