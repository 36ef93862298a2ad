import { z } from "zod";
import { durationSchema, modelIdSchema, orExpression } from "./common-schemas.js";

// The `with:` block of each step kind. Strings anywhere may hold `${{ }}` templates; fields of
// another type take a literal or one whole `${{ }}` expression.

const text = z.string();
const media = (what: string) =>
  orExpression(z.array(text), "a list").meta({
    description: `${what}: file paths (relative to the workflow file), http(s) URLs, data URIs, or artifacts of earlier steps.`,
  });
const modelFields = {
  model: modelIdSchema.optional().meta({ description: "Model id; default: defaults.model." }),
  fallbacks: z
    .array(modelIdSchema)
    .optional()
    .meta({ description: "Models tried in order when the model keeps failing." }),
  temperature: orExpression(z.number().min(0).max(1), "a number from 0 to 1").optional(),
  maxTokens: orExpression(z.int().positive(), "a whole number above 0")
    .optional()
    .meta({ description: "Output token limit." }),
};

/** `uses: chat`: one chat turn, with media, structured output and tools. */
export const chatWithSchema = z.strictObject({
  ...modelFields,
  prompt: text.meta({ description: "The user message." }),
  system: text.optional().meta({ description: "The system message." }),
  history: orExpression(
    z.array(z.strictObject({ role: z.enum(["user", "assistant"]), content: text })),
    "a list of { role, content }",
  )
    .optional()
    .meta({ description: "Earlier turns, before the prompt." }),
  images: media("Images to look at").optional(),
  audio: media("Audio to listen to (mp3 or wav; gamma-2.5 models)").optional(),
  video: media("Video to watch (gamma-2.5 models)").optional(),
  schema: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "JSON Schema of the answer: the output is the parsed, checked value instead of { text }." }),
  tools: z.array(z.string().min(1)).optional().meta({ description: "Tools from tools/ the model may call." }),
  maxToolRounds: z
    .int()
    .min(1)
    .max(50)
    .optional()
    .meta({ description: "Tool-call rounds before giving up. Default 8." }),
  stop: z.union([text, z.array(text)]).optional(),
});

/** `uses: image`: generate an image, or edit `source`. */
export const imageWithSchema = z.strictObject({
  model: modelIdSchema
    .optional()
    .meta({ description: "An image model; default: defaults.imageModel or gamma-2.5-flash-image." }),
  fallbacks: z.array(modelIdSchema).optional(),
  prompt: text,
  source: text
    .optional()
    .meta({ description: "Image to edit: a path, URL, data URI or an earlier image step's output." }),
});

/** Music operations a step can run. */
export const MUSIC_STEP_OPERATIONS = ["generate", "continuation", "stems", "lyrics", "concatenation"] as const;

/** `uses: music`: submit a job once, journal its clip ids, poll, download the audio. */
export const musicWithSchema = z.strictObject({
  operation: z.enum(MUSIC_STEP_OPERATIONS).optional().meta({ description: "Default generate." }),
  prompt: text.optional().meta({ description: "What to make (generate, lyrics; optional for continuation)." }),
  instrumental: orExpression(z.boolean(), "true, false").optional(),
  clip: text.optional().meta({
    description:
      "Clip id, or an earlier music step's clip, to continue, split into stems, or join with what it continues.",
  }),
  at: orExpression(z.number().nonnegative(), "a number of seconds")
    .optional()
    .meta({ description: "Continue from this second of the clip." }),
  download: z.boolean().optional().meta({ description: "Download finished audio into artifacts/. Default true." }),
});

/** `uses: agent`: a tool-using agent from agents/, or one made from inline tools. */
export const agentWithSchema = z.strictObject({
  ...modelFields,
  agent: z.string().min(1).optional().meta({ description: "An agent from agents/." }),
  tools: z.array(z.string().min(1)).optional().meta({ description: "Inline agent: tools from tools/." }),
  approve: z.array(z.string().min(1)).optional().meta({
    description:
      "Tools whose calls wait for a person's approval (svc-flow approve); a rejection goes back to the model as the tool's result.",
  }),
  prompt: text.meta({ description: "The task." }),
  system: text.optional(),
  maxSteps: z.int().min(1).max(100).optional().meta({ description: "Model turns before giving up. Default 12." }),
});

/** `uses: tool`: call one tool from tools/. */
export const toolWithSchema = z.strictObject({
  tool: z.string().min(1).meta({ description: "Tool name, e.g. calculator." }),
  input: orExpression(z.record(z.string(), z.unknown()), "a mapping")
    .optional()
    .meta({ description: "The tool's arguments." }),
});

/** What an approval that nobody answered in time becomes. */
export const ON_APPROVAL_TIMEOUT = ["reject", "approve"] as const;

/** `uses: approval`: the run waits (exit 3) until a person answers with `svc-flow approve`. */
export const approvalWithSchema = z.strictObject({
  prompt: text.meta({ description: "What the person is asked." }),
  show: z.unknown().optional().meta({
    description:
      "What they look at before answering (shown by the CLI and the report), e.g. ${{ steps.posters.output }}.",
  }),
  input: z.record(z.string(), z.unknown()).optional().meta({
    description: "JSON Schema of the reply (svc-flow approve --input JSON); a reply that does not fit is refused.",
  }),
  timeout: durationSchema.optional().meta({
    description: 'How long the question stays open, e.g. "2d"; a run resumed after it is decided by onTimeout.',
  }),
  onTimeout: z
    .enum(ON_APPROVAL_TIMEOUT)
    .optional()
    .meta({ description: "The decision once the timeout has passed. Default reject." }),
});

/** The `with:` schema of each leaf step kind. */
export const WITH_SCHEMAS = {
  chat: chatWithSchema,
  image: imageWithSchema,
  music: musicWithSchema,
  agent: agentWithSchema,
  tool: toolWithSchema,
  approval: approvalWithSchema,
} as const;

/** A leaf step kind (`uses:`). */
export type LeafKind = keyof typeof WITH_SCHEMAS;
/** The leaf step kinds, in documentation order. */
export const LEAF_KINDS = Object.keys(WITH_SCHEMAS) as LeafKind[];

/** The `with:` of an approval step. */
export type ApprovalWith = z.infer<typeof approvalWithSchema>;
/** The `with:` of a music step. */
export type MusicWith = z.infer<typeof musicWithSchema>;
