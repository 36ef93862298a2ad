import { referencedStepIds, type ValuePath } from "./expression/index.js";
import { exposedIds } from "./load/walk-steps.js";
import { childSteps, isMapStep, isParallelStep, type Step } from "./schema/step-schemas.js";
import { ownReferences } from "./step-references.js";

/** A step with what it waits for; the graph follows from references and `needs:`. */
export interface StepNode {
  readonly step: Step;
  /** The step's path in the file, e.g. `["steps", 2]`; also how the journal names it (with map item indexes). */
  readonly path: ValuePath;
  /** Ids of sibling steps that must be done (finished or skipped) before this one starts. */
  readonly after: readonly string[];
  /** A container's children, in file order. */
  readonly children: readonly StepNode[];
}

/**
 * Builds the graph of one list of steps (recursively for containers). A step waits for the sibling
 * that owns each step it reads (for a reference into a parallel, the parallel), wherever in its
 * subtree the reference is; references to steps outside the list are the enclosing container's to wait for.
 * `reads` gives the step ids a step's own expressions name, when they were already found (the loader's check does).
 */
export function buildStepGraph(
  steps: readonly Step[],
  path: ValuePath = ["steps"],
  reads: (step: Step) => Iterable<string> = ownStepReads,
): StepNode[] {
  const owner = new Map<string, string>();
  for (const step of steps) for (const id of exposedIds(step)) owner.set(id, step.id);
  return steps.map((step, index) => {
    const stepPath = [...path, index];
    const after = new Set<string>();
    addSubtreeReads(step, reads, (id) => {
      const sibling = owner.get(id);
      if (sibling !== undefined && sibling !== step.id) after.add(sibling);
    });
    const children =
      isMapStep(step) || isParallelStep(step)
        ? buildStepGraph(childSteps(step), [...stepPath, isMapStep(step) ? "steps" : "parallel"], reads)
        : [];
    return { step, path: stepPath, after: [...after], children };
  });
}

// Gives `add` each step id a step and its children read or name in needs:.
function addSubtreeReads(step: Step, reads: (step: Step) => Iterable<string>, add: (id: string) => void): void {
  for (const id of reads(step)) add(id);
  for (const id of step.needs ?? []) add(id);
  for (const child of childSteps(step)) addSubtreeReads(child, reads, add);
}

function ownStepReads(step: Step): string[] {
  return referencedStepIds(ownReferences(step));
}
