import { z } from "zod";
import { LEAF_STEP_SCHEMAS, mapStepSchema, parallelStepSchema } from "./step-schemas.js";
import { workflowShallowSchema } from "./workflow-schema.js";

const stepSchema: z.ZodType = z
  .lazy(() =>
    z.union([
      ...Object.values(LEAF_STEP_SCHEMAS),
      mapStepSchema.extend({ steps: z.array(stepSchema).min(1) }),
      parallelStepSchema.extend({ parallel: z.array(stepSchema).min(1) }),
    ]),
  )
  .meta({ id: "step" });

/** The whole file format as one recursive zod schema; the loader checks the same pieces one level at a time. */
export const recursiveWorkflowSchema = workflowShallowSchema.extend({ steps: z.array(stepSchema).min(1) });

/** The JSON Schema editors use to complete and check workflow files (workflow.schema.json). */
export function workflowJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(recursiveWorkflowSchema, { target: "draft-2020-12", unrepresentable: "any" });
  return {
    ...schema,
    title: "svc-flow workflow",
    description:
      "A workflow file for `svc-flow run`. Strings may hold ${{ }} expressions over inputs, steps.<id>.output, run and the map variable.",
  };
}

/** The text of src/workflow/workflow.schema.json, exactly as committed. */
export function workflowSchemaFileText(): string {
  return `${JSON.stringify(workflowJsonSchema(), null, 2)}\n`;
}
