import { z } from "zod";
import { durationSchema, identifierSchema, orExpression, retrySchema, variableNameSchema } from "./common-schemas.js";
import { WITH_SCHEMAS, type LeafKind } from "./with-schemas.js";

// Steps are checked one level at a time: a container's `steps`/`parallel` are `unknown[]` here and
// the loader validates each child on its own, so an error inside a map names that child's kind
// instead of a union of every kind. `workflow-json-schema.ts` builds the recursive form for editors.

const baseFields = {
  id: identifierSchema.meta({ description: "Unique in the file; other steps read steps.<id>.output." }),
  name: z.string().optional().meta({ description: "Shown in progress and the report." }),
  if: orExpression(z.boolean(), "true, false")
    .optional()
    .meta({ description: "Run only when true; a skipped step's output is undefined." }),
  needs: z
    .array(identifierSchema)
    .optional()
    .meta({ description: "Steps that must finish first, beyond those referenced." }),
  reuse: z.boolean().optional().meta({
    description:
      "false: run this step (a container: every step in it) in every run, never taking a finished result from `--reuse` or `rerun`. Default true.",
  }),
};
const callFields = {
  retry: retrySchema.optional(),
  timeout: durationSchema.optional().meta({ description: "Time for the whole step, retries included." }),
};

function leafStep<K extends LeafKind>(kind: K) {
  return z.strictObject({ ...baseFields, uses: z.literal(kind), with: WITH_SCHEMAS[kind], ...callFields });
}

/** Each leaf step's schema, by kind. */
export const LEAF_STEP_SCHEMAS = {
  chat: leafStep("chat"),
  image: leafStep("image"),
  music: leafStep("music"),
  agent: leafStep("agent"),
  tool: leafStep("tool"),
  // A person's decision calls nothing, so there is nothing to retry or time out but the question's own timeout.
  approval: z.strictObject({ ...baseFields, uses: z.literal("approval"), with: WITH_SCHEMAS.approval }),
} as const;

/** What a map does with an item whose steps fail. */
export const ON_ITEM_ERROR = ["fail", "skip", "collect"] as const;

/** `map:` container, one level deep (its `steps` are validated one by one). */
export const mapStepSchema = z.strictObject({
  ...baseFields,
  map: orExpression(z.array(z.unknown()), "a list").meta({
    description: "The items: an array, or an expression giving one.",
  }),
  as: variableNameSchema.optional().meta({ description: "Name of the item in expressions. Default item." }),
  concurrency: z
    .int()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: "Items in flight at once. Default: the run's limit." }),
  onItemError: z.enum(ON_ITEM_ERROR).optional().meta({
    description:
      "fail (default): the first failed item fails the map; skip: drop failed items; collect: keep { error } in place.",
  }),
  steps: z.array(z.unknown()).min(1).meta({ description: "Steps run for each item." }),
  output: z.unknown().optional().meta({ description: "Per-item output; default: the last step's output." }),
});

/** `parallel:` container, one level deep. */
export const parallelStepSchema = z.strictObject({
  ...baseFields,
  parallel: z.array(z.unknown()).min(1).meta({ description: "Steps started at once." }),
});

type Leaf<K extends LeafKind> = z.infer<(typeof LEAF_STEP_SCHEMAS)[K]>;

/** A chat step. */
export type ChatStep = Leaf<"chat">;
/** An image step. */
export type ImageStep = Leaf<"image">;
/** A music step. */
export type MusicStep = Leaf<"music">;
/** An agent step. */
export type AgentStep = Leaf<"agent">;
/** A tool step. */
export type ToolStep = Leaf<"tool">;
/** An approval step. */
export type ApprovalStep = Leaf<"approval">;
/** Any leaf step (`uses:`). */
export type LeafStep = ChatStep | ImageStep | MusicStep | AgentStep | ToolStep | ApprovalStep;
/** A leaf step that calls something (every kind but approval). */
export type CallStep = Exclude<LeafStep, ApprovalStep>;
/** A map step with its nested steps validated. */
export type MapStep = Omit<z.infer<typeof mapStepSchema>, "steps"> & { readonly steps: readonly Step[] };
/** A parallel step with its children validated. */
export type ParallelStep = Omit<z.infer<typeof parallelStepSchema>, "parallel"> & {
  readonly parallel: readonly Step[];
};
/** Any step of a workflow. */
export type Step = LeafStep | MapStep | ParallelStep;

/** Whether a step is a `map:` container. */
export function isMapStep(step: Step): step is MapStep {
  return "map" in step;
}

/** Whether a step is a `parallel:` container. */
export function isParallelStep(step: Step): step is ParallelStep {
  return "parallel" in step;
}

/** The child steps of a container; empty for a leaf. */
export function childSteps(step: Step): readonly Step[] {
  if (isMapStep(step)) return step.steps;
  if (isParallelStep(step)) return step.parallel;
  return [];
}
