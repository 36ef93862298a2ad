import { z } from "zod";
import { findModel, suggestModels } from "../catalog/models.js";
import { priceOverridesSchema } from "../catalog/prices.js";
import { DIALECT_NAMES, type DialectName } from "./dialects/index.js";

/** The key the local gateway accepts when its config lists none. */
export const DEMO_KEY = "sk-local-demo";
/** Default request body limit: 20 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024;
/** How long a request body may take to arrive, by default: a body trickling in must not hold a slot for minutes. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

const modelId = z.string().superRefine((id, context) => {
  if (id !== "*" && !findModel(id)) {
    const hints = suggestModels(id)
      .map((hint) => `"${hint}"`)
      .join(", ");
    context.addIssue({ code: "custom", message: `Unknown model "${id}". Did you mean ${hints}?` });
  }
});

const rate = z.number().min(0).max(1);

/** One API key the gateway accepts. */
export const keyConfigSchema = z
  .object({
    /** The secret, `sk-...`. */
    key: z.string().regex(/^sk-[A-Za-z0-9_\-.]+$/, 'Expected a key of the form "sk-..." (letters, digits, - _ .)'),
    /** A label for stats and logs, so the secret never has to appear there. Default: a redacted hint. */
    name: z.string().min(1).optional(),
    /** Yuan this key may spend; omitted or null means unlimited. */
    quota: z.number().finite().nonnegative().nullable().optional(),
    /** Model ids this key may call, or "*" for all. */
    models: z.union([z.literal("*"), z.array(modelId).min(1)]).default("*"),
    /** Requests per minute; beyond it 429 rate_limit_exceeded. */
    rpm: z.number().int().positive().optional(),
    /** Requests in flight; beyond it 429 concurrency_limit_exceeded. */
    concurrency: z.number().int().positive().optional(),
  })
  .strict();
export type KeyConfig = z.infer<typeof keyConfigSchema>;

/** Injected failures for one model (or "*" for every model without its own entry). */
export const modelFaultSchema = z
  .object({
    /** Share of requests answered with `status` (a 5xx). */
    errorRate: rate.default(0),
    status: z.number().int().min(500).max(599).default(503),
    /** Share of requests answered with 429 rate_limit_exceeded and Retry-After. */
    rateLimitRate: rate.default(0),
    retryAfterS: z.number().nonnegative().default(1),
    /** Share of requests whose connection is cut: mid-stream, or before a JSON body. */
    dropRate: rate.default(0),
    /** Delay before the response starts, replacing the global latencyMs for this model. */
    latencyMs: z.number().nonnegative().optional(),
    /** Delay between streamed chunks, for testing clients' between-chunk timeouts. */
    chunkDelayMs: z.number().nonnegative().default(0),
  })
  .strict();
export type ModelFault = z.infer<typeof modelFaultSchema>;

/** Fault injection: seeded, so the same requests in the same order meet the same faults. */
export const faultsConfigSchema = z
  .object({
    seed: z.number().int().default(1),
    latencyMs: z.number().nonnegative().default(0),
    models: z.record(modelId, modelFaultSchema).default({}),
  })
  .strict();

/** The simulated music service. */
export const musicConfigSchema = z
  .object({
    /** When a clip gets its audio_url, after submission. */
    completeAfterMs: z.number().nonnegative().default(2000),
    /** Share of music jobs that fail (and are refunded). */
    failRate: rate.default(0),
    /** Length of a generated clip. */
    clipSeconds: z.number().positive().max(600).default(8),
    /** The upstream capacity `get_limit` reports as credits_left. */
    credits: z.number().int().nonnegative().default(2500),
  })
  .strict();

const dialectName = z.string().superRefine((name, context) => {
  if (!(DIALECT_NAMES as string[]).includes(name)) {
    context.addIssue({
      code: "custom",
      message: `Unknown dialect "${name}". Known dialects: ${DIALECT_NAMES.join(", ")}.`,
    });
  }
}) as unknown as z.ZodType<DialectName>;

/** `dialect:` one relay dialect for every reply, or one per model family (unnamed families speak clean). */
export const dialectSettingSchema = z.union(
  [
    dialectName,
    z.object({ alpha: dialectName.optional(), beta: dialectName.optional(), gamma: dialectName.optional() }).strict(),
  ],
  {
    error: `Expected a dialect name (${DIALECT_NAMES.join(", ")}) or a map from family (alpha, beta, gamma) to a dialect name.`,
  },
);

/** The local gateway's configuration (DESIGN.md section 3); every field is optional. */
export const gatewayConfigSchema = z
  .object({
    keys: z.array(keyConfigSchema).min(1).optional(),
    prices: priceOverridesSchema.default({}),
    faults: faultsConfigSchema.default({ seed: 1, latencyMs: 0, models: {} }),
    music: musicConfigSchema.default({ completeAfterMs: 2000, failRate: 0, clipSeconds: 8, credits: 2500 }),
    limits: z
      .object({
        maxBodyBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES),
        /** From the request's headers to its body's last byte; past it 408 and the connection is closed. */
        bodyTimeoutMs: z.number().int().positive().default(DEFAULT_BODY_TIMEOUT_MS),
      })
      .strict()
      .default({ maxBodyBytes: DEFAULT_MAX_BODY_BYTES, bodyTimeoutMs: DEFAULT_BODY_TIMEOUT_MS }),
    /** The relay dialect replies and errors are sent in (docs/dialects.md). Default clean. */
    dialect: dialectSettingSchema.default("clean"),
    /** Honour `Idempotency-Key` (replay billed answers). false acts as a relay that ignores it: every request bills. */
    idempotency: z.boolean().default(true),
    /** Bill a chat call whose client left before its answer was ready, as relays whose upstream call runs on do. */
    billAfterDisconnect: z.boolean().default(false),
    /** Answer image models with a link the gateway serves (`{root}/images/<id>.png`) instead of an inline
     * data URI, as relays that keep generated images on their own storage do. */
    imageLinks: z.boolean().default(false),
  })
  .strict()
  .superRefine((config, context) => {
    const seen = new Set<string>();
    config.keys?.forEach((entry, index) => {
      if (seen.has(entry.key)) {
        context.addIssue({ code: "custom", path: ["keys", index, "key"], message: "Duplicate key." });
      }
      seen.add(entry.key);
    });
  });

/** The config as written (input) and as used (defaults applied). */
export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
export type GatewayConfig = z.output<typeof gatewayConfigSchema>;

/** The keys in effect: the configured ones, or the demo key with no limits. */
export function effectiveKeys(config: GatewayConfig): KeyConfig[] {
  return config.keys ?? [{ key: DEMO_KEY, models: "*" }];
}
