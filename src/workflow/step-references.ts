import { collectReferences, type Reference, type ValuePath } from "./expression/index.js";
import type { Step } from "./schema/step-schemas.js";

/** The fields of a step whose `${{ }}` expressions are rendered when it runs; a container's child steps have their own. */
export const EXPRESSION_FIELDS = ["if", "with", "map", "output"] as const;

/** The references in a step's own expression fields (not its child steps'); throws ExpressionError on bad syntax. */
export function ownReferences(step: Step, path: ValuePath = []): Reference[] {
  const references: Reference[] = [];
  for (const field of EXPRESSION_FIELDS) {
    const value = (step as Partial<Record<string, unknown>>)[field];
    if (value !== undefined) references.push(...collectReferences(value, [...path, field]));
  }
  return references;
}
