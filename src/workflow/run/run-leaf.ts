import { RateLimitError, TimeoutError } from "../../errors.js";
import type { RetryPolicy } from "../../scheduling/retry.js";
import { resolvePolicy, waitsTooLong, withRetry } from "../../scheduling/retry.js";
import { renderValue } from "../expression/index.js";
import { runAgentStep } from "../kinds/agent-kind.js";
import { runChatStep } from "../kinds/chat-kind.js";
import { runImageStep } from "../kinds/image-kind.js";
import { runMusicStep } from "../kinds/music-kind.js";
import type { LeafContext } from "../kinds/step-kind.js";
import { runToolStep } from "../kinds/tool-kind.js";
import { durationMs } from "../schema/common-schemas.js";
import type { CallStep } from "../schema/step-schemas.js";
import { workflowToolContext } from "../schema/tool-settings-schema.js";
import type { StepNode } from "../step-graph.js";
import { planModels } from "../step-models.js";
import { NotStartedError } from "./error-summary.js";
import { leafStepKey, takeFinishedStep } from "./reuse-step.js";
import { expressionScope, type RunState, type Scope, type StepResult } from "./run-state.js";
import { StepReport } from "./step-report.js";
import { traced } from "./trace-step.js";

/**
 * Runs a leaf step under the run's call limit, its timeout and retry policy, and queues its record on
 * the journal with its step key; a finished step of an earlier run with the same key (`--reuse`) is
 * taken instead. Resolves with the output once the call returned; `durable` once the record is on
 * disk (and the step announced finished): dependents wait for it.
 */
export async function runLeaf(
  node: StepNode,
  scope: Scope,
  state: RunState,
  key: string,
): Promise<StepResult & { readonly durable: Promise<void> }> {
  const step = node.step as CallStep;
  const defaults = state.workflow.definition.defaults ?? {};
  const input = renderValue(step.with, expressionScope(scope), [...node.path, "with"]) as Record<string, unknown>;
  const leafKey = await leafStepKey(step, input, scope, state);
  const stepKey = leafKey.key;
  if (state.halt !== undefined) throw new NotStartedError(key);
  const reused = await takeFinishedStep(step, scope, state, key, leafKey);
  if (reused !== undefined)
    return { output: reused.output, key: stepKey, reused: reused.reused, durable: Promise.resolve() };
  const rendered = { ...step, with: { ...step.with, ...pickModels(input) } } as CallStep;
  const models = planModels(rendered, defaults);
  for (const dropped of models.dropped) {
    state.emit({
      type: "warning",
      key,
      message: `Fallback ${dropped.model} (from defaults.fallbacks) is left out for step ${key}: it lacks ${dropped.missing}.`,
    });
  }
  const { retry, timeoutMs, settings, toolContext } = leafPolicy(step, state.workflow.definition);
  // The slot is the call's: it is given back when the call returns, before the record's fsync.
  const called = await state.limit(async () => {
    if (state.halt !== undefined) throw new NotStartedError(key);
    const startedAt = new Date();
    state.emit({ type: "step-started", key, id: step.id, kind: step.uses });
    const report = new StepReport();
    // What earlier attempts of this step paid (an agent's journaled turns, a call cut short by a kill)
    // is its cost too; a call they paid for that is sent again is replayed by the gateway at 0.
    for (const entry of state.replay.costsOf(key)) report.add(entry);
    state.reports.set(key, report);
    const timer = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signal = timer === undefined ? state.signal : AbortSignal.any([state.signal, timer]);
    const stepModels = { ...(models.model === undefined ? {} : { model: models.model }), fallbacks: models.fallbacks };
    let output: unknown;
    try {
      output = await traced(state, { name: key, kind: step.uses, input }, (_inner, span) => {
        const services = state.services(key, report, retry, span);
        return dispatch(
          { key, step, input, models: stepModels, settings, toolContext, retry, signal, services },
          state,
        );
      });
    } catch (error) {
      if (timer?.aborted === true && !state.signal.aborted) {
        throw new TimeoutError(
          `Step "${key}" did not finish within ${timeoutMs! / 1000}s. Raise its timeout:, or make the step smaller.`,
          { cause: error },
        );
      }
      // Given up on at once (a fallback may take over): say how to wait instead.
      if (error instanceof RateLimitError && waitsTooLong(error, retry)) {
        const { status, retryAfterS, requestId, auditId, backendId } = error;
        throw new RateLimitError(
          `${error.message} The gateway asked to wait ${retryAfterS} s, longer than retry's longRetryAfterS (${retry.longRetryAfterS} s): raise it in the step's or the defaults' retry: to wait that long, or give the step a fallback.`,
          { cause: error, status, retryAfterS, requestId, auditId, backendId },
        );
      }
      throw error;
    } finally {
      state.reports.delete(key);
      state.stepEnded?.(key);
    }
    return { output, report, startedAt, finishedAt: new Date() };
  });
  const { output, report, startedAt, finishedAt } = called;
  const durationMsTaken = finishedAt.getTime() - startedAt.getTime();
  // Queued after the call's cost records, so a kill never keeps the step without its bill.
  const durable = state.journal.append({
    type: "step-finished",
    key,
    id: step.id,
    kind: step.uses,
    output,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: durationMsTaken,
    attempts: report.attempts,
    fallbacks: report.fallbacks,
    ...(modelOf(output) === undefined ? {} : { model: modelOf(output) }),
    costYuan: report.costYuan,
    unpriced: report.unpriced,
    stepKey,
    ...(leafKey.call === undefined ? {} : { call: leafKey.call }),
  });
  const announced = durable.then(() =>
    state.emit({
      type: "step-finished",
      key,
      id: step.id,
      kind: step.uses,
      durationMs: durationMsTaken,
      costYuan: report.costYuan,
      replayed: false,
    }),
  );
  return { output, key: stepKey, durable: announced };
}

/** What a leaf step's calls take from its definition and the workflow's: the same for every item of a map. */
interface LeafPolicy {
  readonly retry: Readonly<Required<RetryPolicy>>;
  readonly timeoutMs: number | undefined;
  readonly settings: LeafContext["settings"];
  readonly toolContext: LeafContext["toolContext"];
}

const POLICIES = new WeakMap<CallStep, { readonly workflow: object; readonly policy: LeafPolicy }>();

// Made once per step (a parsed workflow does not change), not once per map item.
function leafPolicy(step: CallStep, workflow: RunState["workflow"]["definition"]): LeafPolicy {
  const known = POLICIES.get(step);
  if (known?.workflow === workflow) return known.policy;
  const defaults = workflow.defaults ?? {};
  const spec = step.retry ?? defaults.retry;
  const timeout = step.timeout ?? defaults.timeout;
  const policy: LeafPolicy = {
    // Resolved here, so no call of any item resolves it again.
    retry: resolvePolicy(
      spec === undefined
        ? {}
        : {
            attempts: spec.attempts,
            ...(spec.minDelayMs === undefined ? {} : { minDelayMs: spec.minDelayMs }),
            ...(spec.maxDelayMs === undefined ? {} : { maxDelayMs: spec.maxDelayMs }),
            ...(spec.longRetryAfterS === undefined ? {} : { longRetryAfterS: spec.longRetryAfterS }),
          },
    ),
    timeoutMs: timeout === undefined ? undefined : durationMs(timeout),
    settings: {
      ...(defaults.temperature === undefined ? {} : { temperature: defaults.temperature }),
      ...(defaults.maxTokens === undefined ? {} : { maxTokens: defaults.maxTokens }),
    },
    toolContext: workflowToolContext(workflow.tools),
  };
  POLICIES.set(step, { workflow, policy });
  return policy;
}

function dispatch(context: LeafContext, state: RunState): Promise<unknown> {
  const step = context.step;
  switch (step.uses) {
    case "chat":
      return runChatStep({ ...context, step });
    case "image":
      return runImageStep({ ...context, step });
    case "music":
      return runMusicStep({ ...context, step }, state.music);
    case "agent":
      return runAgentStep({ ...context, step });
    case "tool":
      // Nothing below a tool retries, so the step's policy applies here (only to retryable errors).
      return withRetry(() => runToolStep({ ...context, step }), context.retry, { signal: context.signal });
  }
}

// Model ids may be expressions; the rendered ones decide the plan.
function pickModels(input: Record<string, unknown>): Record<string, unknown> {
  return {
    ...(typeof input.model === "string" ? { model: input.model } : {}),
    ...(Array.isArray(input.fallbacks) ? { fallbacks: input.fallbacks } : {}),
  };
}

function modelOf(output: unknown): string | undefined {
  const model = (output as { model?: unknown } | null)?.model;
  return typeof model === "string" ? model : undefined;
}
