import { isMapStep } from "../schema/step-schemas.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import { mediaFields } from "./media-fields.js";
import { walkSteps } from "./walk-steps.js";

const INPUT_NAME = /\binputs\.([A-Za-z_][\w-]*)/g;
const NAME = /[A-Za-z_][\w-]*/g;

/**
 * The inputs a workflow reads as files when given a path: `items` inputs, and every input a media
 * field (`images`, `audio`, `video`, an image step's `source`) names, directly or through the
 * variable of a map over it.
 */
export function fileInputNames(definition: WorkflowDefinition): Set<string> {
  const names = new Set<string>();
  for (const [name, spec] of Object.entries(definition.inputs ?? {})) if (spec.type === "items") names.add(name);
  // The inputs each map variable may hold items of (an over-estimate: every name in the map's expression counts).
  const variables = new Map<string, Set<string>>();
  const inputsIn = (value: unknown): Set<string> => {
    const text = JSON.stringify(value) ?? "";
    const found = new Set([...text.matchAll(INPUT_NAME)].map((match) => match[1]!));
    for (const [name] of text.matchAll(NAME)) for (const input of variables.get(name) ?? []) found.add(input);
    return found;
  };
  walkSteps(definition.steps, ({ step }) => {
    if (isMapStep(step)) variables.set(step.as ?? "item", inputsIn(step.map));
    for (const { value } of mediaFields(step)) for (const input of inputsIn(value)) names.add(input);
  });
  return names;
}
