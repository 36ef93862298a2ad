import { collectReferences, referencedStepIds } from "../expression/index.js";
import { walkSteps } from "../load/walk-steps.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";

/**
 * Whether some step's `if:` reads the approval step `id` (`steps.<id>...`). Such a rejection is an
 * answer the workflow handles, so the step finishes with `approved: false` instead of failing the run.
 */
export function approvalReadByCondition(definition: WorkflowDefinition, id: string): boolean {
  let read = false;
  walkSteps(definition.steps, ({ step, path }) => {
    if (step.if === undefined || typeof step.if !== "string") return;
    if (referencedStepIds(collectReferences(step.if, [...path, "if"])).includes(id)) read = true;
  });
  return read;
}
