import type { GatewayConfig, ModelFault } from "./config.js";

/** What the fault injector decided for one request. */
export type FaultDecision =
  | { readonly kind: "none"; readonly latencyMs: number; readonly chunkDelayMs: number }
  | { readonly kind: "error"; readonly latencyMs: number; readonly status: number }
  | { readonly kind: "rate_limit"; readonly latencyMs: number; readonly retryAfterS: number }
  | {
      readonly kind: "drop";
      readonly latencyMs: number;
      readonly chunkDelayMs: number;
      /** Where in the stream to cut, as a share of its chunks (0..1). */
      readonly cutAt: number;
    };

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same sequence. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string, for deriving seeds. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Decides, per model and reproducibly, which requests meet an injected fault. */
export class FaultInjector {
  readonly #seed: number;
  readonly #latencyMs: number;
  readonly #faults: Readonly<Record<string, ModelFault>>;
  // The decision of nearly every request, made once.
  readonly #none: FaultDecision;
  // One sequence per model, so traffic to one model does not shift the faults another one meets.
  readonly #random = new Map<string, () => number>();

  constructor(config: GatewayConfig["faults"]) {
    this.#seed = config.seed;
    this.#latencyMs = config.latencyMs;
    this.#faults = config.models;
    this.#none = { kind: "none", latencyMs: config.latencyMs, chunkDelayMs: 0 };
  }

  /** The fault (or none) for the next request to a model. */
  decide(modelId: string): FaultDecision {
    const fault = this.#faults[modelId] ?? this.#faults["*"];
    if (!fault) return this.#none;
    const latencyMs = fault.latencyMs ?? this.#latencyMs;
    let random = this.#random.get(modelId);
    if (!random) {
      random = mulberry32(hashString(modelId, this.#seed));
      this.#random.set(modelId, random);
    }
    // Always draw all four numbers, so each request consumes the same share of the sequence.
    const [error, rateLimit, drop, cutAt] = [random(), random(), random(), random()];
    if (error < fault.errorRate) return { kind: "error", latencyMs, status: fault.status };
    if (rateLimit < fault.rateLimitRate) return { kind: "rate_limit", latencyMs, retryAfterS: fault.retryAfterS };
    if (drop < fault.dropRate) return { kind: "drop", latencyMs, chunkDelayMs: fault.chunkDelayMs, cutAt };
    return { kind: "none", latencyMs, chunkDelayMs: fault.chunkDelayMs };
  }
}
