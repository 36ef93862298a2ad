import type { CostTotals } from "../../cost/summarize-entries.js";
import type { Workflow } from "../load/load-workflow.js";
import { compareStepKeys, workflowOrder } from "../report/step-order.js";
import type { ErrorSummary } from "../run/journal-records.js";
import { childSteps, type Step } from "../schema/step-schemas.js";
import { diffValues, type ValueChange } from "./diff-values.js";
import type { InstanceStatus, RunDirContents, StepInstance } from "./read-run-dir.js";

/** How a step instance compares: only in the second run, only in the first, or in both, differing or not. */
export type StepDiffStatus = "added" | "removed" | "changed" | "same";

/** What differs about a step instance present in both runs. */
export type StepChange = "status" | "input" | "output";

/** One side of a step instance: how it ended and what it cost. */
export interface StepSide {
  readonly status: InstanceStatus;
  readonly model?: string;
  /** Priced yuan of its calls (every attempt); 0 when it made none. */
  readonly costYuan: number;
  /** Calls billed without a known price: their cost is not in costYuan. */
  readonly unpricedCalls: number;
  readonly calls: number;
  readonly error?: ErrorSummary;
}

/** One step instance (`pitch`, `posters[1].poster`) compared across the two runs. */
export interface StepDiff {
  readonly key: string;
  readonly id: string;
  readonly kind: string;
  readonly status: StepDiffStatus;
  /** For a changed step: what differs. */
  readonly changes: readonly StepChange[];
  readonly a?: StepSide;
  readonly b?: StepSide;
  /** Differences in the step's definition (`with.prompt`, `with.model`, `if`, ...). */
  readonly input: readonly ValueChange[];
  /** Differences in its output (`output.text`, `output[0]`, an image) and, for failed steps, its error (`error.code`). */
  readonly output: readonly ValueChange[];
}

/** One run as the comparison names it. */
export interface RunSide {
  readonly dir: string;
  readonly runId: string;
  readonly name: string;
  /** How its last attempt ended; `unfinished` while it runs or when its process died. */
  readonly status: string;
  readonly startedAt: string;
  readonly costYuan: number;
  /** False when some of its calls have no price, so costYuan is not its whole cost. */
  readonly costComplete: boolean;
}

/** Two runs compared step by step: what a rerun changed. */
export interface RunDiff {
  readonly a: RunSide;
  readonly b: RunSide;
  /** Whether the two runs were started from different workflow files (by content hash). */
  readonly workflowChanged: boolean;
  /** Differences in the run's inputs (`inputs.product`). */
  readonly inputs: readonly ValueChange[];
  /** Differences in the workflow's `defaults:` (`defaults.model`: what every step without its own uses). */
  readonly defaults: readonly ValueChange[];
  /** Every leaf step instance of either run, in the file's order (map items by index). */
  readonly steps: readonly StepDiff[];
  readonly counts: Readonly<Record<StepDiffStatus, number>>;
}

/** Compares two runs read with readRunDir: inputs, defaults, and each leaf step instance's definition, outcome, output and cost. */
export function diffRuns(a: RunDirContents, b: RunDirContents): RunDiff {
  const keys = [...new Set([...a.steps.keys(), ...b.steps.keys()])];
  const order = stepOrder(b.workflow, a.workflow);
  keys.sort((left, right) => compareStepKeys(order, left, right));
  const steps = keys.map((key) => diffStep(a.steps.get(key), b.steps.get(key), a.workflow, b.workflow));
  const counts = { added: 0, removed: 0, changed: 0, same: 0 };
  for (const step of steps) counts[step.status] += 1;
  return {
    a: runSide(a),
    b: runSide(b),
    workflowChanged: a.start.workflowHash !== b.start.workflowHash,
    inputs: diffValues(a.start.inputs, b.start.inputs, "inputs"),
    defaults: diffValues(a.workflow?.definition.defaults ?? {}, b.workflow?.definition.defaults ?? {}, "defaults"),
    steps,
    counts,
  };
}

function diffStep(
  a: StepInstance | undefined,
  b: StepInstance | undefined,
  workflowA: Workflow | undefined,
  workflowB: Workflow | undefined,
): StepDiff {
  const either = (b ?? a)!;
  const base = { key: either.key, id: either.id, kind: either.kind };
  if (a === undefined || b === undefined) {
    return {
      ...base,
      status: a === undefined ? "added" : "removed",
      changes: [],
      ...(a === undefined ? {} : { a: stepSide(a) }),
      ...(b === undefined ? {} : { b: stepSide(b) }),
      input: [],
      output: [],
    };
  }
  // Without both files (a copy missing or no longer loading) the definitions cannot be compared.
  const input =
    workflowA === undefined || workflowB === undefined
      ? []
      : diffValues(definitionOf(workflowA, a.id), definitionOf(workflowB, b.id));
  const output = [...diffValues(a.output, b.output, "output"), ...diffValues(a.error ?? {}, b.error ?? {}, "error")];
  const changes: StepChange[] = [
    ...(a.status === b.status ? [] : ["status" as const]),
    ...(input.length > 0 ? ["input" as const] : []),
    ...(output.length > 0 ? ["output" as const] : []),
  ];
  return {
    ...base,
    status: changes.length === 0 ? "same" : "changed",
    changes,
    a: stepSide(a),
    b: stepSide(b),
    input,
    output,
  };
}

function stepSide(instance: StepInstance): StepSide {
  const cost: CostTotals | undefined = instance.cost;
  return {
    status: instance.status,
    ...(instance.model === undefined ? {} : { model: instance.model }),
    costYuan: cost?.yuan ?? 0,
    unpricedCalls: cost?.unpricedCalls ?? 0,
    calls: cost?.calls ?? 0,
    ...(instance.error === undefined ? {} : { error: instance.error }),
  };
}

function runSide(run: RunDirContents): RunSide {
  return {
    dir: run.dir,
    runId: run.start.runId,
    name: run.start.name,
    status: run.finished ?? "unfinished",
    startedAt: run.start.startedAt,
    costYuan: run.cost.totalYuan,
    costComplete: run.cost.complete,
  };
}

/** A leaf step's definition in a workflow file (without its id), found by id; undefined when the file has no such step. */
function definitionOf(workflow: Workflow, id: string): unknown {
  const find = (list: readonly Step[]): Step | undefined => {
    for (const step of list) {
      if (step.id === id) return step;
      const found = find(childSteps(step));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const step = find(workflow.definition.steps);
  if (step === undefined) return undefined;
  const { id: _id, ...definition } = step as Step & Record<string, unknown>;
  return definition;
}

/** Step ids in the order of the second run's file, then those only the first run's file has. */
function stepOrder(first: Workflow | undefined, second: Workflow | undefined): Map<string, number> {
  const order = workflowOrder(first?.definition.steps ?? []);
  for (const id of workflowOrder(second?.definition.steps ?? []).keys()) if (!order.has(id)) order.set(id, order.size);
  return order;
}
