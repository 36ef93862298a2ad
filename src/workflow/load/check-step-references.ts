import {
  checkReferences,
  collectReferences,
  ExpressionError,
  referencedStepId,
  formatPath,
  type ReferenceContext,
  type StepIds,
  type ValuePath,
} from "../expression/index.js";
import { isMapStep, type Step } from "../schema/step-schemas.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import type { RawIssue } from "./zod-issues.js";
import { EarlierSteps } from "./earlier-steps.js";
import { exposedIds, stepPlaces, type StepPlace } from "./walk-steps.js";

/** Fields of `run` that expressions may read. */
export const RUN_FIELDS = ["id", "name", "dir", "startedAt"] as const;

const ROOTS = ["inputs", "steps", "run"];

/** What the reference check found. */
export interface ReferenceCheck {
  readonly issues: RawIssue[];
  /**
   * The step ids each step's own expressions name (see ownReferences), found here once so the step
   * graph need not parse them again; only the ids are kept, not the references, as that is all it reads.
   */
  readonly stepReads: ReadonlyMap<Step, readonly string[]>;
}

/** Checks every `${{ }}` and `needs:`: syntax, and that each name exists and finishes before the reader. */
export function checkStepReferences(
  definition: WorkflowDefinition,
  places: readonly StepPlace[] = stepPlaces(definition.steps),
): ReferenceCheck {
  const issues: RawIssue[] = [];
  const stepReads = new Map<Step, string[]>();
  // Every id in the file tells a step that comes later from one that does not exist.
  const allSteps = new Set(places.map((place) => place.step.id));
  const inputs = Object.keys(definition.inputs ?? {});
  for (const place of places) {
    const { step, path } = place;
    const context: ReferenceContext = {
      inputs,
      allSteps,
      runFields: RUN_FIELDS,
      roots: place.mapVariables.length === 0 ? ROOTS : [...ROOTS, ...place.mapVariables],
      steps: place.earlier,
      currentStep: step.id,
    };
    const own: string[] = [];
    stepReads.set(step, own);
    check(step.if, path, "if", context, issues, own);
    checkNeeds(step, place, allSteps, issues);
    if ("with" in step) check(step.with, path, "with", context, issues, own);
    if (isMapStep(step)) {
      check(step.map, path, "map", context, issues, own);
      const variable = step.as ?? "item";
      if (ROOTS.includes(variable) || place.mapVariables.includes(variable)) {
        issues.push({
          path: [...path, "as"],
          message: `"${variable}" is already a name in expressions here; pick another name for the item.`,
        });
      }
      const inside = place.earlier.with(step.steps.flatMap(exposedIds));
      const outputContext = { ...context, roots: [...context.roots, variable], steps: inside };
      check(step.output, path, "output", outputContext, issues, own);
    }
  }
  const topLevel = EarlierSteps.none.with(definition.steps.flatMap(exposedIds));
  const outputsContext = { inputs, allSteps, runFields: RUN_FIELDS, roots: ROOTS, steps: topLevel };
  check(definition.outputs, [], "outputs", outputsContext, issues, []);
  return { issues, stepReads };
}

// Checks the references in one field (`field` of the value at `path`) and adds the step ids they name to `found`.
function check(
  value: unknown,
  path: ValuePath,
  field: string,
  context: ReferenceContext,
  issues: RawIssue[],
  found: string[],
): void {
  if (value === undefined) return;
  try {
    const references = collectReferences(value, [...path, field]);
    for (const reference of references) {
      const id = referencedStepId(reference);
      if (id !== undefined) found.push(id);
    }
    issues.push(...checkReferences(references, context).map(toIssue));
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    issues.push(toIssue(error));
  }
}

/** An expression error as a positioned issue; the position replaces the "At path:" prefix. */
export function toIssue(error: ExpressionError): RawIssue {
  const path = error.location ?? [];
  const prefix = `At ${formatPath(path)}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return { path, message, offsetInString: error.column === undefined ? undefined : error.column - 1 };
}

function checkNeeds(step: Step, place: StepPlace, allSteps: StepIds, issues: RawIssue[]): void {
  (step.needs ?? []).forEach((id, index) => {
    if (place.earlier.has(id)) return;
    const path = [...place.path, "needs", index];
    if (id === step.id) issues.push({ path, message: `Step "${id}" cannot wait for itself.` });
    else if (allSteps.has(id))
      issues.push({
        path,
        message: `Step "${id}" does not run before this one. Move this step after "${id}", or drop it from needs.`,
      });
    else {
      const before = [...place.earlier];
      issues.push({
        path,
        message: `There is no step "${id}"${before.length > 0 ? ` (steps before this one: ${before.join(", ")})` : ""}.`,
      });
    }
  });
}
