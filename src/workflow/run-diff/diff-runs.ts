import type { CostTotals } from "../../cost/summarize-entries.js";
import type { Workflow } from "../load/load-workflow.js";
import { sortByStepKey, workflowOrder } from "../report/step-order.js";
import type { ErrorSummary } from "../run/journal-records.js";
import { stepReads } from "../run/step-key.js";
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
  /** The earlier run it was taken from (`--reuse`) instead of being run. */
  readonly reusedFrom?: string;
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
  /**
   * Differences in the step's definition (`with.prompt`, `with.model`, `if`, ...). A step whose step key
   * differs while its definition does not read something that changed (see `reads`).
   */
  readonly input: readonly ValueChange[];
  /** For an input change the definition does not show: the steps it reads whose results differ. */
  readonly reads?: readonly string[];
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
  const order = stepOrder(b.workflow, a.workflow);
  const keys = sortByStepKey(order, [...new Set([...a.steps.keys(), ...b.steps.keys()])], (key) => key);
  const steps = keys.map((key) => diffStep(key, { a, b }));
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

type Runs = { readonly a: RunDirContents; readonly b: RunDirContents };

function diffStep(key: string, runs: Runs): StepDiff {
  const a = runs.a.steps.get(key);
  const b = runs.b.steps.get(key);
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
  const input = diffInputs(a, b, runs);
  const output = [...diffValues(a.output, b.output, "output"), ...diffValues(a.error ?? {}, b.error ?? {}, "error")];
  // Equal keys mean the same calls would be sent; different ones that the definition does not explain
  // come from what the step reads.
  const keyChanged = a.stepKey !== undefined && b.stepKey !== undefined && a.stepKey !== b.stepKey;
  const reads = keyChanged ? changedReads(a, runs) : [];
  const showReads = keyChanged && (reads.length > 0 || input.length === 0);
  const changes: StepChange[] = [
    ...(a.status === b.status ? [] : ["status" as const]),
    ...(input.length > 0 || keyChanged ? ["input" as const] : []),
    ...(output.length > 0 ? ["output" as const] : []),
  ];
  return {
    ...base,
    status: changes.length === 0 ? "same" : "changed",
    changes,
    a: stepSide(a),
    b: stepSide(b),
    input,
    ...(showReads ? { reads } : {}),
    output,
  };
}

/**
 * What differs in a step's input: its calls as journaled with their keys (the prompt as sent, media
 * by content), else (journals from before step keys) its definitions in the two files.
 */
function diffInputs(a: StepInstance, b: StepInstance, runs: Runs): ValueChange[] {
  if (a.call !== undefined && b.call !== undefined) return diffValues(a.call, b.call);
  // Without both files (a copy missing or no longer loading) the definitions cannot be compared.
  if (runs.a.workflow === undefined || runs.b.workflow === undefined) return [];
  return diffValues(definitionOf(runs.a.workflow, a.id), definitionOf(runs.b.workflow, b.id));
}

/** The steps a step instance reads (its file's references) whose step keys differ between the runs. */
function changedReads(a: StepInstance, runs: Runs): string[] {
  const step = runs.b.workflow === undefined ? undefined : findStep(runs.b.workflow.definition.steps, a.id);
  if (step === undefined) return [];
  // `posters[1].poster` reads `draft` in its own item first, then outside the map.
  const prefixes: string[] = [];
  for (let at = a.key.lastIndexOf("."); at > 0; at = a.key.lastIndexOf(".", at - 1))
    prefixes.push(a.key.slice(0, at + 1));
  prefixes.push("");
  return stepReads(step).filter((id) => {
    const prefix = prefixes.find(
      (candidate) => runs.a.stepKeys.has(candidate + id) || runs.b.stepKeys.has(candidate + id),
    );
    return prefix === undefined || runs.a.stepKeys.get(prefix + id) !== runs.b.stepKeys.get(prefix + id);
  });
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
    ...(instance.reusedFrom === undefined ? {} : { reusedFrom: instance.reusedFrom }),
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
  const step = findStep(workflow.definition.steps, id);
  if (step === undefined) return undefined;
  const { id: _id, ...definition } = step as Step & Record<string, unknown>;
  return definition;
}

function findStep(list: readonly Step[], id: string): Step | undefined {
  for (const step of list) {
    if (step.id === id) return step;
    const found = findStep(childSteps(step), id);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Step ids in the order of the second run's file, then those only the first run's file has. */
function stepOrder(first: Workflow | undefined, second: Workflow | undefined): Map<string, number> {
  const order = workflowOrder(first?.definition.steps ?? []);
  for (const id of workflowOrder(second?.definition.steps ?? []).keys()) if (!order.has(id)) order.set(id, order.size);
  return order;
}
