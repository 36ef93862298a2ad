import type { ValuePath } from "../expression/index.js";
import { isMapStep, isParallelStep, type Step } from "../schema/step-schemas.js";
import { EarlierSteps } from "./earlier-steps.js";

/** What is in scope where a step sits. */
export interface StepPlace {
  readonly step: Step;
  /** The step's path in the file, e.g. `["steps", 2, "steps", 0]`. */
  readonly path: ValuePath;
  /** Ids of steps that finish before this one starts: earlier siblings and what they expose, and the same for every enclosing list. */
  readonly earlier: EarlierSteps;
  /** Map variables of the enclosing maps, outermost first. */
  readonly mapVariables: readonly string[];
  /** The enclosing map step, when the step runs once per item. */
  readonly inMap?: Step;
}

/** Ids a step makes readable to the steps after it: its own, and a parallel's children's (a map's stay inside it). */
export function exposedIds(step: Step): string[] {
  if (isParallelStep(step)) return [step.id, ...step.parallel.flatMap(exposedIds)];
  return [step.id];
}

/** Every id in a step's subtree. */
export function subtreeIds(step: Step): string[] {
  if (isMapStep(step)) return [step.id, ...step.steps.flatMap(subtreeIds)];
  if (isParallelStep(step)) return [step.id, ...step.parallel.flatMap(subtreeIds)];
  return [step.id];
}

/** Every step's place, depth-first in file order: the loader's checks share one list rather than each walking the steps. */
export function stepPlaces(steps: readonly Step[]): StepPlace[] {
  const places: StepPlace[] = [];
  walkSteps(steps, (place) => places.push(place));
  return places;
}

/** Visits every step depth-first in file order, telling each what it may read. */
export function walkSteps(steps: readonly Step[], visit: (place: StepPlace) => void): void {
  walkList(steps, visit, { path: ["steps"], earlier: EarlierSteps.none, mapVariables: [], sequential: true });
}

interface ListPlace {
  readonly path: ValuePath;
  readonly earlier: EarlierSteps;
  readonly mapVariables: readonly string[];
  readonly inMap?: Step;
  /** False for a parallel's children: they start together, so none reads another. */
  readonly sequential: boolean;
}

function walkList(steps: readonly Step[], visit: (place: StepPlace) => void, list: ListPlace): void {
  const finished = EarlierSteps.listAfter(list.earlier);
  steps.forEach((step, index) => {
    const path = [...list.path, index];
    const earlier = finished.at();
    visit({ step, path, earlier, mapVariables: list.mapVariables, inMap: list.inMap });
    if (isMapStep(step)) {
      const mapVariables = [...list.mapVariables, step.as ?? "item"];
      walkList(step.steps, visit, { path: [...path, "steps"], earlier, mapVariables, inMap: step, sequential: true });
    } else if (isParallelStep(step)) {
      walkList(step.parallel, visit, { ...list, path: [...path, "parallel"], earlier, sequential: false });
    }
    if (list.sequential) finished.add(exposedIds(step));
  });
}
