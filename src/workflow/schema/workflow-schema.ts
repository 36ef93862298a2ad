import { z } from "zod";
import { durationSchema, identifierSchema, modelIdSchema, retrySchema } from "./common-schemas.js";
import type { Step } from "./step-schemas.js";
import { toolSettingsSchema } from "./tool-settings-schema.js";
import { mcpSectionSchema } from "../mcp/mcp-section-schema.js";

/** Types an input may declare. */
export const INPUT_TYPES = ["string", "number", "integer", "boolean", "array", "object", "items"] as const;

/** One declared input. */
export const inputSpecSchema = z.strictObject({
  type: z.enum(INPUT_TYPES).optional().meta({
    description:
      "Default string. Media inputs are strings: a path, URL or data URI. items: a .jsonl or .csv file (relative to the workflow file); the workflow runs once per row, with the row as this input's value.",
  }),
  default: z.unknown().optional(),
  optional: z.boolean().optional().meta({ description: "May be left out (its value is then undefined)." }),
  description: z.string().optional(),
  enum: z
    .array(z.union([z.string(), z.number(), z.boolean()]))
    .min(1)
    .optional()
    .meta({ description: "The allowed values." }),
});
/** An input as declared in a workflow file. */
export type InputSpec = z.infer<typeof inputSpecSchema>;

/** Settings every step starts from. */
export const defaultsSchema = z.strictObject({
  model: modelIdSchema.optional().meta({ description: "Model of chat and agent steps that name none." }),
  imageModel: modelIdSchema
    .optional()
    .meta({ description: "Model of image steps that name none. Default gamma-2.5-flash-image." }),
  fallbacks: z.array(modelIdSchema).optional().meta({
    description:
      "Fallback models of chat and agent steps that name none; ones lacking a capability a step needs are left out for it.",
  }),
  retry: retrySchema.optional(),
  timeout: durationSchema.optional(),
  temperature: z.number().min(0).max(1).optional(),
  maxTokens: z.int().positive().optional().meta({
    description:
      "Output token limit of chat calls that set none; it also bounds each call's budget reservation. Default 4096 (or the model's minimum).",
  }),
});
/** Workflow-wide step defaults. */
export type Defaults = z.infer<typeof defaultsSchema>;

/** A workflow file, one level deep: `steps` are validated one by one by the loader. */
export const workflowShallowSchema = z.strictObject({
  $schema: z.string().optional().meta({ description: "Path or URL of workflow.schema.json, for editors." }),
  version: z.literal(1).meta({ description: "The file format version: 1." }),
  name: identifierSchema.optional().meta({ description: "Default: the file name without its extension." }),
  description: z.string().optional(),
  inputs: z.record(identifierSchema, inputSpecSchema).optional(),
  budget: z
    .strictObject({
      maxYuan: z.number().positive().meta({ description: "Stop (resumably) before a call would spend more." }),
      allowUnpriced: z.boolean().optional().meta({
        description:
          "Run calls to models without a published price, uncounted (as --allow-unpriced), instead of stopping at them. Default false.",
      }),
    })
    .optional(),
  schedule: z
    .strictObject({
      cron: z
        .string()
        .min(1)
        .meta({ description: 'Five-field cron, e.g. "0 6 * * 1-5"; a sixth, leading field counts seconds.' }),
      overlap: z.enum(["skip", "queue-one", "allow"]).optional().meta({
        description:
          "When a firing comes while the previous run is still going: skip it, queue at most one, or allow runs side by side. Default skip.",
      }),
      timezone: z
        .string()
        .optional()
        .meta({ description: 'IANA time zone of the cron, e.g. "Europe/Paris". Default: the machine\'s.' }),
      catchUp: z
        .boolean()
        .optional()
        .meta({ description: "On start, run firings missed while the scheduler was stopped. Default false." }),
    })
    .optional()
    .meta({ description: "Used by `svc-flow schedule`." }),
  concurrency: z
    .int()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: "Calls in flight at once in the whole run. Default 8." }),
  defaults: defaultsSchema.optional(),
  tools: toolSettingsSchema.optional(),
  mcp: mcpSectionSchema.optional(),
  steps: z.array(z.unknown()).min(1),
  outputs: z.record(z.string().min(1), z.unknown()).optional().meta({ description: "Values written to outputs.json." }),
});

/** A validated workflow file: every step checked. */
export type WorkflowDefinition = Omit<z.infer<typeof workflowShallowSchema>, "steps"> & {
  readonly steps: readonly Step[];
};
