import { z } from "zod";
import { listModels } from "../../catalog/models.js";
import { memberNamePattern } from "../expression/index.js";

/** A whole value that is one `${{ }}` expression; it is rendered at run time and keeps its type. */
export const EXACT_EXPRESSION = /^\s*\$\{\{[\s\S]*\}\}\s*$/;

/** A string that is exactly one `${{ }}` expression. */
export const expressionSchema = expressionOf("a");

function expressionOf(what: string) {
  return z
    .string()
    .regex(EXACT_EXPRESSION, { message: `Expected ${what} "\${{ ... }}" expression` })
    .meta({ description: "A ${{ }} expression, rendered when the step runs." });
}

/** A literal of the given schema (described as `what`), or a `${{ }}` expression that yields one at run time. */
export function orExpression<T extends z.ZodType>(schema: T, what: string) {
  const message = `Expected ${what} or a "\${{ ... }}" expression`;
  return z.union([schema, expressionOf(`${what}, or a`)], { error: () => message });
}

/** Step ids and input names: usable after a dot in expressions (`steps.make-poster.output`). */
export const identifierSchema = z.string().regex(memberNamePattern, {
  message: 'Expected a name of letters, digits, "_" and inner "-" (e.g. "make-poster"), starting with a letter',
});

/** The map variable (`as:`): a plain identifier, since it is read as a root name. */
export const variableNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  message: 'Expected a name of letters, digits and "_", starting with a letter (e.g. "tagline")',
});

/** A model id from the catalogue (checked when the file loads), or an expression. */
export const modelIdSchema = z
  .string()
  .min(1)
  .meta({
    id: "modelId",
    description: "A model id, e.g. alpha-sonnet-4-6.",
    examples: listModels().map((model) => model.id),
  });

/** A duration: a number of seconds, or text such as "500ms", "30s", "2m", "2d". */
export const durationSchema = z
  .union([
    z.number().positive(),
    z.string().regex(/^\s*\d+(?:\.\d+)?\s*(ms|s|m|h|d)\s*$/, {
      message: 'Expected a duration such as "30s", "500ms", "2m" or "2d"',
    }),
  ])
  .meta({ id: "duration", description: 'Seconds as a number, or text such as "500ms", "30s", "2m", "2d".' });

/** How a failing call is tried again (429, 5xx, broken connections; never 400/401/quota). */
export const retrySchema = z
  .strictObject({
    attempts: z.int().min(1).max(20).meta({ description: "Tries in all, the first included. Default 4." }),
    minDelayMs: z
      .int()
      .min(0)
      .max(600_000)
      .optional()
      .meta({ description: "Backoff ceiling of the first retry. Default 250." }),
    maxDelayMs: z.int().min(0).max(600_000).optional().meta({ description: "Longest backoff. Default 20000." }),
    longRetryAfterS: z.number().min(0).max(3600).optional().meta({
      description:
        "A Retry-After longer than this many seconds ends the retries, so a fallback can take over. Default 30; raise it for a batch that should wait out a rate limit.",
    }),
  })
  .meta({ id: "retry" });
/** A retry policy as written in a workflow file. */
export type RetrySpec = z.infer<typeof retrySchema>;

const UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration as written (seconds, or "30s") in milliseconds. */
export function durationMs(value: number | string): number {
  if (typeof value === "number") return value * 1000;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (match === null) throw new RangeError(`Not a duration: ${value}`);
  return Number(match[1]) * UNITS_MS[match[2] as keyof typeof UNITS_MS];
}
