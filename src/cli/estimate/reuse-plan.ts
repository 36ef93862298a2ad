import { listAgentDefinitions } from "../../../agents/index.js";
import { collectReferences, isTruthy, referencedStepIds, renderValue } from "../../workflow/expression/index.js";
import type { Workflow } from "../../workflow/load/load-workflow.js";
import { mapItemKey, mapKey, mapLineage, parallelKey } from "../../workflow/run/container-keys.js";
import type { FinishedStep } from "../../workflow/run/finished-steps.js";
import { leafStepKey, type KeyingState } from "../../workflow/run/reuse-step.js";
import { expressionScope, type Scope, type StepResult } from "../../workflow/run/run-state.js";
import { SKIPPED_STEP_KEY, stepReads, type StepKeyContext } from "../../workflow/run/step-key.js";
import { isMapStep, isParallelStep, type MapStep, type Step } from "../../workflow/schema/step-schemas.js";

/** A leaf step instance the run would take from an earlier run instead of calling anything. */
export interface ReusedInstance {
  /** The instance as the run journals it, e.g. `posters[1].poster`. */
  readonly key: string;
  /** Its step's ids from the top, as the estimate's rows name it (`posters.poster`). */
  readonly step: string;
  /** The run directory it would come from. */
  readonly from: string;
}

/** Which leaf step instances `svc-flow run --reuse` would take instead of running them. */
export interface ReusePlan {
  readonly runDirs: readonly string[];
  readonly reused: readonly ReusedInstance[];
  /** Reused instances per estimate row (`posters.poster`). */
  readonly byStep: ReadonlyMap<string, number>;
}

// What a step is known to give, as far as the estimate can tell: a result whose key is undefined is
// one only the run will know (the step runs, or is waited on), so nothing that reads it is reused.
type Known = StepResult;

interface Place {
  /** Journal key prefix (`posters[1].`) and estimate row prefix (`posters.`). */
  readonly keyPrefix: string;
  readonly rowPrefix: string;
  readonly scope: Scope;
}

/**
 * Predicts, without calling anything, which leaf step instances a run with `--reuse` takes from the
 * given runs' finished steps. It applies the run's own keying rule (step-key.ts) wherever a step's
 * key can be made before running: a step is reused only when every step it reads was reused (or
 * skipped), so its inputs are the earlier run's outputs; a step that reads one that runs (or an
 * approval, or `run.*`, or an input not given) is counted as running. That is the run's outcome
 * too: a step that runs has a key no earlier run finished, so everything reading it runs as well.
 */
export async function planReuse(
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
  missingInputs: ReadonlySet<string>,
  finished: ReadonlyMap<string, FinishedStep>,
  runDirs: readonly string[],
): Promise<ReusePlan> {
  const context: StepKeyContext = {
    workflow: workflow.definition,
    agents: listAgentDefinitions(),
    baseDir: workflow.baseDir,
    mediaCache: new Map(),
  };
  // The run's keying exactly; forced steps (which would get this id) are counted as running before it is used.
  const keying: KeyingState = { keys: { context, finished }, runId: "estimate", workflow, runDir: "" };
  const reused: ReusedInstance[] = [];
  const planner: Planner = { keying, finished, missingInputs, reused };
  const scope: Scope = { inputs, run: {}, steps: {}, variables: {} };
  await walk(workflow.definition.steps, { keyPrefix: "", rowPrefix: "", scope }, planner);
  const byStep = new Map<string, number>();
  for (const instance of reused) byStep.set(instance.step, (byStep.get(instance.step) ?? 0) + 1);
  return { runDirs, reused, byStep };
}

interface Planner {
  readonly keying: KeyingState;
  readonly finished: ReadonlyMap<string, FinishedStep>;
  readonly missingInputs: ReadonlySet<string>;
  readonly reused: ReusedInstance[];
}

async function walk(list: readonly Step[], place: Place, planner: Planner): Promise<void> {
  for (const step of list) place.scope.steps[step.id] = await planStep(step, place, planner);
}

const UNKNOWN: Known = { output: undefined };

async function planStep(step: Step, place: Place, planner: Planner): Promise<Known> {
  const { scope } = place;
  if (step.if !== undefined) {
    if (!canRender(step.if, scope, planner)) return UNKNOWN;
    if (!isTruthy(renderValue(step.if, expressionScope(scope)))) return { output: undefined, key: SKIPPED_STEP_KEY };
  }
  const key = place.keyPrefix + step.id;
  const row = place.rowPrefix + step.id;
  if (isMapStep(step)) return planMap(step, place, planner, key, row);
  if (isParallelStep(step)) {
    const inner: Place = { ...place, rowPrefix: `${row}.`, scope: forcedScope(step, scope) };
    await walk(step.parallel, inner, planner);
    const children = step.parallel.map((child) => child.id);
    const keys = Object.fromEntries(children.map((id) => [id, scope.steps[id]?.key]));
    if (Object.values(keys).some((childKey) => childKey === undefined)) return UNKNOWN;
    return { output: Object.fromEntries(children.map((id) => [id, scope.steps[id]?.output])), key: parallelKey(keys) };
  }
  // A person answers an approval step again in every run, so what follows it is only known then.
  if (step.uses === "approval" || isForced(step, scope)) return UNKNOWN;
  if (!canRender(step, scope, planner) || !stepReads(step).every((id) => scope.steps[id]?.key !== undefined))
    return UNKNOWN;
  const input = renderValue(step.with, expressionScope(scope)) as Record<string, unknown>;
  const { key: stepKey } = await leafStepKey(step, input, scope, planner.keying);
  const found = planner.finished.get(stepKey);
  if (found === undefined) return UNKNOWN;
  planner.reused.push({ key, step: row, from: found.runDir });
  return { output: found.output, key: stepKey };
}

async function planMap(step: MapStep, place: Place, planner: Planner, key: string, row: string): Promise<Known> {
  const { scope } = place;
  const inner = forcedScope(step, scope);
  // The list itself must be known to know the items: read from reused steps' outputs, the inputs or the file.
  if (
    !canRender(step.map, scope, planner) ||
    !referencedStepIds(collectReferences(step.map)).every((id) => scope.steps[id]?.key !== undefined)
  )
    return UNKNOWN;
  const items = renderValue(step.map, expressionScope(scope));
  if (!Array.isArray(items)) return UNKNOWN;
  const lineage = mapLineage(step, (id) => scope.steps[id]?.key, scope.lineage);
  const last = step.steps[step.steps.length - 1]!.id;
  const itemKeys: Array<string | undefined> = [];
  const outputs: unknown[] = [];
  for (const [index, item] of items.entries()) {
    const itemScope: Scope = {
      ...inner,
      steps: { ...scope.steps },
      variables: { ...scope.variables, [step.as ?? "item"]: item },
      lineage,
    };
    await walk(step.steps, { keyPrefix: `${key}[${index}].`, rowPrefix: `${row}.`, scope: itemScope }, planner);
    const keys = Object.fromEntries(step.steps.map((child) => [child.id, itemScope.steps[child.id]?.key]));
    const known = Object.values(keys).every((childKey) => childKey !== undefined);
    itemKeys.push(known ? mapItemKey(keys) : undefined);
    outputs.push(
      !known
        ? undefined
        : step.output === undefined
          ? itemScope.steps[last]?.output
          : renderValue(step.output, expressionScope(itemScope)),
    );
  }
  if (itemKeys.some((itemKey) => itemKey === undefined)) return UNKNOWN;
  return { output: outputs, key: mapKey(step, itemKeys, lineage) };
}

/** Whether a value's expressions read only what is known now: inputs given, variables, steps with a known result. */
function canRender(value: unknown, scope: Scope, planner: Planner): boolean {
  return collectReferences(value).every((reference) => {
    if (reference.dynamic) return false;
    const [first] = reference.path;
    if (reference.root === "run") return false;
    if (reference.root === "inputs") return typeof first !== "string" || !planner.missingInputs.has(first);
    if (reference.root === "steps") return typeof first === "string" && scope.steps[first]?.key !== undefined;
    return true;
  });
}

function isForced(step: Step, scope: Scope): boolean {
  return scope.forced === true || step.reuse === false;
}

function forcedScope(step: Step, scope: Scope): Scope {
  return isForced(step, scope) ? { ...scope, forced: true } : scope;
}
