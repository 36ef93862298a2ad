import { listAgentDefinitions } from "../../../agents/index.js";
import type { CallStep, Step } from "../schema/step-schemas.js";
import type { ArtifactStore } from "./artifact-store.js";
import type { FinishedStep } from "./finished-steps.js";
import type { ResolvedCall, ReusedFrom } from "./journal-records.js";
import type { RunState, Scope } from "./run-state.js";
import { leafDefinition, stepKey, stepReads, type StepKeyContext, type StepReads } from "./step-key.js";

/** How a run keys its steps, and what it may reuse. */
export interface StepKeys {
  readonly context: StepKeyContext;
  /** Finished steps of the runs named by `--reuse`, by step key. */
  readonly finished: ReadonlyMap<string, FinishedStep>;
  /** The step `rerun --from` runs again (with everything that reads it). */
  readonly rerunFrom?: string;
  /** Where reused artifacts are copied to: the run's own store. */
  readonly artifacts?: ArtifactStore;
}

/** The keys of what a step read: the steps it names (a step without a key as `unkeyed`), and its map's lineage. */
export function readKeys(step: Step, scope: Scope): StepReads {
  const reads: Record<string, string> = {};
  for (const id of stepReads(step)) reads[id] = scope.steps[id]?.key ?? "unkeyed";
  if (scope.lineage !== undefined) reads.$map = scope.lineage;
  return reads;
}

/** Whether a step runs whatever its key: `reuse: false`, `rerun --from` it, or inside a container that does. */
export function isForced(step: Step, scope: Scope, state: Pick<RunState, "keys">): boolean {
  return scope.forced === true || step.reuse === false || (state.keys?.rerunFrom ?? undefined) === step.id;
}

/** A key for `definition` reading `reads`; a forced step's is made new for this run (`once`). */
export function keyFor(
  definition: Readonly<Record<string, unknown>>,
  reads: StepReads,
  forced: boolean,
  runId: string,
): string {
  return stepKey(forced ? { ...definition, once: runId } : definition, reads);
}

/** What leafStepKey reads of a run: how it keys steps, its id (for forced steps) and where it is. */
export type KeyingState = Pick<RunState, "keys" | "runId" | "workflow" | "runDir">;

/** A leaf step's key, and its call as the key saw it (none when the definition could not be keyed). */
export interface LeafKey {
  readonly key: string;
  readonly call?: ResolvedCall;
}

/** The step key of a leaf step about to run, `input` being its rendered `with:` (the estimator's too). */
export async function leafStepKey(
  step: CallStep,
  input: Readonly<Record<string, unknown>>,
  scope: Scope,
  state: KeyingState,
): Promise<LeafKey> {
  const context = state.keys?.context ?? defaultContext(state);
  const forced = isForced(step, scope, state);
  let definition: Record<string, unknown>;
  try {
    definition = await leafDefinition(step, input, context);
  } catch (error) {
    // A definition that cannot be put in a key (a tool whose schema does not convert) is never reused.
    return { key: keyFor({ kind: step.uses, unkeyable: String(error) }, readKeys(step, scope), true, state.runId) };
  }
  const {
    with: rendered,
    model,
    fallbacks,
  } = definition as { with: Record<string, unknown>; model?: string; fallbacks?: string[] };
  return {
    key: keyFor(definition, readKeys(step, scope), forced, state.runId),
    call: {
      with: rendered,
      ...(model === undefined ? {} : { model }),
      ...(fallbacks === undefined ? {} : { fallbacks }),
    },
  };
}

/**
 * Takes a finished step of an earlier run with this key, unless the step is forced: copies its
 * artifacts (checked by content hash), journals it as `reused` at no cost and announces it. Returns
 * its output, or undefined (the step runs) when there is none or an artifact cannot be copied.
 */
export async function takeFinishedStep(
  step: CallStep,
  scope: Scope,
  state: RunState,
  key: string,
  leafKey: LeafKey,
): Promise<{ output: unknown; reused: ReusedFrom } | undefined> {
  const keys = state.keys;
  const stepKeyValue = leafKey.key;
  const found = keys?.finished.get(stepKeyValue);
  if (found === undefined || keys?.artifacts === undefined || isForced(step, scope, state)) return undefined;
  for (const artifact of found.artifacts) {
    if (!(await keys.artifacts.copyFrom(found.runDir, artifact))) return undefined;
  }
  const reused: ReusedFrom = { runDir: found.runDir, runId: found.runId, key: found.key };
  const at = new Date().toISOString();
  await state.journal.append({
    type: "step-finished",
    key,
    id: step.id,
    kind: step.uses,
    output: found.output,
    startedAt: at,
    finishedAt: at,
    durationMs: 0,
    attempts: 0,
    fallbacks: [],
    ...(modelOf(found.output) === undefined ? {} : { model: modelOf(found.output) }),
    costYuan: 0,
    unpriced: false,
    stepKey: stepKeyValue,
    ...(leafKey.call === undefined ? {} : { call: leafKey.call }),
    reused,
  });
  state.emit({
    type: "step-finished",
    key,
    id: step.id,
    kind: step.uses,
    durationMs: 0,
    costYuan: 0,
    replayed: false,
    reused: { runDir: found.runDir },
  });
  return { output: found.output, reused };
}

function defaultContext(state: KeyingState): StepKeyContext {
  return {
    workflow: state.workflow.definition,
    agents: listAgentDefinitions(),
    baseDir: state.workflow.baseDir,
    runDir: state.runDir,
  };
}

function modelOf(output: unknown): string | undefined {
  const model = (output as { model?: unknown } | null)?.model;
  return typeof model === "string" ? model : undefined;
}
