import { collectReferences, referencedStepIds } from "../expression/index.js";
import type { MapStep } from "../schema/step-schemas.js";
import { stepKey } from "./step-key.js";

// The container part of the keying rule (step-key.ts), in one place for the engine and the estimator.

/**
 * What a map item's steps depend on besides their own reads (`$map`): the keys of the steps the map's `map:` read,
 * with its text. A list that reads no step (literal, or from inputs) has none: each item's value is already in
 * its steps' rendered `with:`, so a changed item reruns alone; a list from a step that ran again reruns every item.
 */
export function mapLineage(
  step: MapStep,
  keyOf: (id: string) => string | undefined,
  outerLineage: string | undefined,
): string | undefined {
  const ids = referencedStepIds(collectReferences(step.map));
  if (ids.length === 0 && outerLineage === undefined) return undefined;
  const reads = Object.fromEntries(ids.map((id) => [id, keyOf(id) ?? "unkeyed"]));
  return stepKey(
    { kind: "map-source", map: step.map },
    outerLineage === undefined ? reads : { ...reads, $map: outerLineage },
  );
}

/** A map item's key: its steps' keys, by id. */
export function mapItemKey(stepKeys: Readonly<Record<string, string | undefined>>): string {
  return stepKey({ kind: "map-item", steps: stepKeys });
}

/** A map's key: its items' keys in order, how it treats failed items, and its `output:`. */
export function mapKey(step: MapStep, itemKeys: readonly (string | undefined)[], lineage: string | undefined): string {
  return stepKey(
    {
      kind: "map",
      output: step.output,
      onItemError: step.onItemError ?? "fail",
      items: itemKeys.map((key) => key ?? "unkeyed"),
    },
    lineage === undefined ? {} : { $map: lineage },
  );
}

/** A parallel's key: its children's keys, by id. */
export function parallelKey(childKeys: Readonly<Record<string, string | undefined>>): string {
  return stepKey({ kind: "parallel", children: childKeys });
}
