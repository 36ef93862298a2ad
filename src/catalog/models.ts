import { editDistance } from "./closest-name.js";
import { UnknownModelError } from "../errors.js";

/** Model families served by the gateway. */
export type Family = "alpha" | "beta" | "gamma";

/** Tier as the spec's catalogue names it; `unclassed` where the spec gives none. */
export type Tier = "flagship" | "standard" | "economy" | "unclassed";

/** What a model accepts and produces. */
export interface Capabilities {
  /** Image input (`image_url` parts). */
  readonly vision: boolean;
  /** Audio input (`input_audio` parts, mp3 or wav). */
  readonly audio: boolean;
  /** Video input (media parts in the content array). */
  readonly video: boolean;
  /** Tool/function calling. */
  readonly tools: boolean;
  /** Returns a generated image inline in the message content. */
  readonly imageGeneration: boolean;
  /** Spends hidden reasoning/thinking tokens out of the output budget. */
  readonly reasoning: boolean;
}

/** Per-model parameter rules, as data: the client applies them, the local gateway enforces them. */
export interface ParameterRules {
  /** Which request field carries the output limit. */
  readonly outputLimitField: "max_tokens" | "max_completion_tokens";
  /** `max_tokens` is a 400 for this model (beta-5 series). */
  readonly rejectsMaxTokens: boolean;
  /** `temperature` and `top_p` are a 400 for this model (alpha-opus-4-8). */
  readonly rejectsSampling: boolean;
  /** Smallest output budget that reliably leaves room for an answer (gamma-2.5-pro: 4096). */
  readonly minOutputTokens?: number;
}

/** One catalogue entry. */
export interface ModelInfo {
  readonly id: string;
  readonly family: Family;
  readonly tier: Tier;
  /** Context window in tokens; undefined where the spec does not publish one. */
  readonly contextWindow?: number;
  readonly capabilities: Capabilities;
  readonly rules: ParameterRules;
  /** The dated version the gateway reports in `model` behind this alias. */
  readonly servedAs: string;
  /** The spec's note for this model. */
  readonly note: string;
}

const TEXT: Capabilities = {
  vision: true,
  audio: false,
  video: false,
  tools: true,
  imageGeneration: false,
  reasoning: false,
};
const MEDIA: Capabilities = { ...TEXT, audio: true, video: true };
const IMAGE: Capabilities = { ...TEXT, tools: false, imageGeneration: true };
const PLAIN: ParameterRules = {
  outputLimitField: "max_tokens",
  rejectsMaxTokens: false,
  rejectsSampling: false,
};
const REASONING: ParameterRules = {
  outputLimitField: "max_completion_tokens",
  rejectsMaxTokens: true,
  rejectsSampling: false,
};

const K200 = 200_000;
const K400 = 400_000;
const M1 = 1_000_000;

function model(id: string, tier: Tier, options: Partial<Omit<ModelInfo, "id" | "tier" | "family">> = {}): ModelInfo {
  const family = id.split("-")[0] as Family;
  return {
    id,
    family,
    tier,
    capabilities: TEXT,
    rules: PLAIN,
    servedAs: id,
    note: "",
    ...options,
  };
}

// The spec's table, in its order. Dated versions (`servedAs`) are what the local gateway reports;
// the spec only says the real one may report a dated version behind an alias.
const MODELS: readonly ModelInfo[] = [
  model("alpha-opus-4-8", "flagship", {
    contextWindow: K200,
    rules: { ...PLAIN, rejectsSampling: true },
    servedAs: "alpha-opus-4-8-20260301",
    note: "Sampling parameters (temperature, top_p) are rejected with HTTP 400",
  }),
  model("alpha-sonnet-4-6", "standard", {
    contextWindow: K200,
    servedAs: "alpha-sonnet-4-6-20260115",
    note: "Context window 200K tokens; published token prices",
  }),
  model("alpha-haiku-4-5-20251001", "economy", { contextWindow: K200, note: "low latency" }),
  model("beta-4o", "standard", { servedAs: "beta-4o-2024-11-20", note: "multimodal" }),
  model("beta-4o-mini", "economy", { servedAs: "beta-4o-mini-2024-07-18" }),
  ...(
    [
      ["beta-5", "flagship", "beta-5-2025-08-07"],
      ["beta-5-mini", "standard", "beta-5-mini-2025-08-07"],
      ["beta-5.5", "flagship", "beta-5.5-2026-05-20"],
      ["beta-5.4", "flagship", "beta-5.4-2026-03-05"],
      ["beta-5.4-mini", "standard", "beta-5.4-mini-2026-03-05"],
      ["beta-5.4-nano", "economy", "beta-5.4-nano-2026-03-05"],
    ] as const
  ).map(([id, tier, servedAs]) =>
    model(id, tier, {
      contextWindow: K400,
      capabilities: { ...TEXT, reasoning: true },
      rules: REASONING,
      servedAs,
      note: "reasoning model; uses max_completion_tokens",
    }),
  ),
  model("gamma-2.5-pro", "flagship", {
    contextWindow: M1,
    capabilities: { ...MEDIA, reasoning: true },
    rules: { ...PLAIN, minOutputTokens: 4096 },
    note: "thinking model; 1M context; give max_tokens at least 4096",
  }),
  model("gamma-2.5-flash", "standard", { contextWindow: M1, capabilities: MEDIA, note: "1M context" }),
  model("gamma-2.5-flash-lite", "economy", {
    contextWindow: M1,
    capabilities: MEDIA,
    note: "1M context",
  }),
  model("gamma-2.5-flash-image", "standard", {
    capabilities: IMAGE,
    note: "image generation through the chat endpoint; about ¥0.42 per image",
  }),
  model("gamma-3-pro-image-preview", "unclassed", { capabilities: IMAGE, note: "accepted as model" }),
  model("gamma-3.1-flash-image-preview", "unclassed", {
    capabilities: IMAGE,
    note: "accepted as model",
  }),
  model("gamma-3.1-pro-preview", "flagship", { note: "preview; availability per live model list" }),
  model("gamma-3.5-flash", "standard", { note: "availability per live model list" }),
];

const BY_ID = new Map<string, ModelInfo>();
for (const info of MODELS) {
  BY_ID.set(info.id, info);
  BY_ID.set(info.servedAs, info);
}

/** The catalogue entry for a model id or its dated version; undefined when unknown. */
export function findModel(id: string): ModelInfo | undefined {
  return BY_ID.get(id);
}

/** The catalogue entry for a model id; an UnknownModelError naming the closest ids otherwise. */
export function getModel(id: string): ModelInfo {
  const info = BY_ID.get(id);
  if (!info) {
    throw new UnknownModelError(
      `Unknown model "${id}". Did you mean ${suggestModels(id)
        .map((s) => `"${s}"`)
        .join(", ")}? ` + "Run `svc-flow models` for the models your key may call.",
    );
  }
  return info;
}

/** Every model of the spec's catalogue, in the spec's order. */
export function listModels(): readonly ModelInfo[] {
  return MODELS;
}

/** Closest catalogue ids to a mistyped one, for "did you mean" messages. */
export function suggestModels(id: string, count = 3): string[] {
  return MODELS.map((info) => ({ id: info.id, distance: editDistance(id, info.id) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, count)
    .map((entry) => entry.id);
}
