import { isTruthy, renderValue } from "../expression/index.js";
import { isMapStep, isParallelStep } from "../schema/step-schemas.js";
import type { StepNode } from "../step-graph.js";
import { budgetStop, isAbort, NotStartedError, summarizeError, WaitingError } from "./error-summary.js";
import { runApproval } from "./run-approval.js";
import { runLeaf } from "./run-leaf.js";
import { runMap } from "./run-map.js";
import { traced } from "./trace-step.js";
import { expressionScope, type RunState, type Scope } from "./run-state.js";
import { isForced } from "./reuse-step.js";
import { SKIPPED_STEP_KEY } from "./step-key.js";
import { parallelKey } from "./container-keys.js";

/** Steps whose work is done and whose records are queued on the journal; `durable` resolves once they are on disk. */
export interface Journaled {
  readonly durable: Promise<void>;
}

/** Nothing left to wait for. */
export const ALREADY_DURABLE: Journaled = { durable: Promise.resolve() };

/**
 * Runs one list of steps: each starts as soon as the siblings it waits for are done (finished or
 * skipped) and their records are durable. After the first failure nothing new starts, steps in
 * flight finish (and are journaled), and the first failure in file order is thrown. A step waiting
 * for a decision (WaitingError) halts nothing: only the steps after it wait, and it is thrown once
 * nothing failed. Resolves once every step's work is done and its record queued, without waiting
 * for the last fsync (so a map item's slot is free by then): the caller waits for `durable`, or
 * appends a record of its own after them, before it hands the outputs on.
 */
export async function executeSteps(
  nodes: readonly StepNode[],
  scope: Scope,
  state: RunState,
  prefix: string,
): Promise<Journaled> {
  const done = new Map<string, Promise<Journaled>>();
  for (const node of nodes) {
    const waitFor = node.after.map((id) => done.get(id)).filter((promise) => promise !== undefined);
    done.set(
      node.step.id,
      // A step that waits for nothing (the first of a map item's steps, say) starts at once.
      waitFor.length === 0
        ? runStep(node, scope, state, prefix)
        : Promise.all(waitFor).then(
            async (before) => {
              await Promise.all(before.map((journaled) => journaled.durable));
              return runStep(node, scope, state, prefix);
            },
            () => {
              throw new NotStartedError(prefix + node.step.id);
            },
          ),
    );
  }
  const results = await Promise.allSettled(done.values());
  const pending = results.flatMap((result) => (result.status === "fulfilled" ? [result.value.durable] : []));
  const durable = pending.length === 1 ? pending[0]! : Promise.all(pending).then(() => undefined);
  // Whoever hands the outputs on waits for it; a journal failure with nobody waiting is reported by the run's last record.
  durable.catch(() => undefined);
  const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
  const real = failures.find((error) => !(error instanceof NotStartedError) && !(error instanceof WaitingError));
  if (real !== undefined) throw real;
  const waiting = failures.find((error) => error instanceof WaitingError);
  if (waiting !== undefined) throw waiting;
  if (failures.length > 0) throw failures[0];
  return { durable };
}

async function runStep(node: StepNode, scope: Scope, state: RunState, prefix: string): Promise<Journaled> {
  const { step } = node;
  const key = prefix + step.id;
  const kind = "uses" in step ? step.uses : isMapStep(step) ? "map" : "parallel";
  const replayed = state.replay.steps.get(key);
  // A parallel is replayed through its children, whose outputs later steps also read.
  if (replayed !== undefined && !isParallelStep(step)) {
    scope.steps[step.id] = { output: replayed.output, key: replayed.stepKey ?? `unkeyed:${state.runId}` };
    state.emit({
      type: "step-finished",
      key,
      id: step.id,
      kind,
      durationMs: replayed.durationMs,
      costYuan: replayed.costYuan,
      replayed: true,
    });
    return ALREADY_DURABLE;
  }
  if (state.replay.skipped.has(key)) {
    scope.steps[step.id] = { output: undefined, key: SKIPPED_STEP_KEY };
    state.emit({ type: "step-skipped", key, id: step.id, replayed: true });
    return ALREADY_DURABLE;
  }
  if (state.halt !== undefined) throw new NotStartedError(key);
  try {
    if (step.if !== undefined && !isTruthy(renderValue(step.if, expressionScope(scope), [...node.path, "if"]))) {
      await state.journal.append({ type: "step-skipped", key, id: step.id, at: new Date().toISOString() });
      scope.steps[step.id] = { output: undefined, key: SKIPPED_STEP_KEY };
      state.emit({ type: "step-skipped", key, id: step.id, replayed: false });
      return ALREADY_DURABLE;
    }
    if ("uses" in step) {
      if (step.uses === "approval") {
        scope.steps[step.id] = await runApproval(node, scope, state, key);
        return ALREADY_DURABLE;
      }
      const { durable, ...result } = await runLeaf(node, scope, state, key);
      scope.steps[step.id] = result;
      return { durable };
    }
    const startedAt = new Date();
    state.emit({ type: "step-started", key, id: step.id, kind });
    // A container run whatever its key makes every step in it run too.
    const inner = isForced(step, scope, state) ? { ...scope, forced: true } : scope;
    const { output, containerKey } = await traced(state, { name: key, kind, input: {} }, async (traceState) => {
      if (isMapStep(step)) {
        const map = await runMap(node, inner, traceState, key, executeSteps);
        return { output: map.output as unknown, containerKey: map.key };
      }
      // The parallel's own record, appended below, lands after its children's.
      await executeSteps(node.children, inner, traceState, prefix);
      const children = node.children.map((child) => child.step.id);
      return {
        output: Object.fromEntries(children.map((id) => [id, scope.steps[id]?.output])) as unknown,
        containerKey: parallelKey(Object.fromEntries(children.map((id) => [id, scope.steps[id]?.key]))),
      };
    });
    const finishedAt = new Date();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    await state.journal.append({
      type: "step-finished",
      key,
      id: step.id,
      kind,
      output,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs,
      attempts: 0,
      fallbacks: [],
      costYuan: 0,
      unpriced: false,
      stepKey: containerKey,
    });
    scope.steps[step.id] = { output, key: containerKey };
    state.emit({ type: "step-finished", key, id: step.id, kind, durationMs, costYuan: 0, replayed: false });
    return ALREADY_DURABLE;
  } catch (error) {
    if (!(error instanceof NotStartedError) && !(error instanceof WaitingError))
      await recordFailure(key, step.id, error, state);
    throw error;
  }
}

/** Journals and announces a failed step, and halts the run (budget, interruption or failure). */
export async function recordFailure(key: string, id: string, error: unknown, state: RunState): Promise<void> {
  const summary = summarizeError(error);
  state.halt ??= {
    reason: budgetStop(error) ? "budget" : isAbort(error, state.signal) ? "interrupted" : "failed",
    error,
  };
  await state.journal
    .append({ type: "step-failed", key, id, at: new Date().toISOString(), error: summary })
    .catch(() => undefined);
  state.emit({ type: "step-failed", key, id, error: summary });
}
