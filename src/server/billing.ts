import type { ModelInfo } from "../catalog/models.js";
import { roundYuan, tokenCost, type MusicOperation, type PriceTable } from "../catalog/prices.js";

/** One billed request, as the gateway recorded it. */
export interface BilledEntry {
  /** The request's x-request-id. */
  readonly requestId: string;
  readonly kind: "chat" | "music";
  /** Catalogue id of the chat model. */
  readonly model?: string;
  readonly operation?: MusicOperation;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly reasoningTokens?: number;
  readonly images?: number;
  /** The Idempotency-Key the request carried, honoured or not (`idempotency: false`). */
  readonly idempotencyKey?: string | undefined;
  readonly yuan: number;
  /** True once a failed music job was refunded; refunded entries are not part of `spentYuan`. */
  readonly refunded: boolean;
}

/** Bookkeeping of one key. */
export interface KeyStats {
  /** The key's configured name, or a redacted hint (`sk-...1234`); never the secret. */
  readonly name: string;
  readonly quota: number | null;
  readonly spentYuan: number;
  readonly remainingYuan: number | null;
  readonly active: boolean;
  readonly inFlight: number;
  readonly requests: {
    readonly total: number;
    /** Finished requests by HTTP status, plus "dropped" for connections the gateway cut. */
    readonly byStatus: Readonly<Record<string, number>>;
    readonly rateLimited: number;
    /** Repeats of a billed request's Idempotency-Key answered from the stored response, unbilled
     * (they are in `total` and `byStatus` too). */
    readonly replayed: number;
  };
  /** The most recent billed requests (up to 10,000), oldest first. */
  readonly billed: readonly BilledEntry[];
  /** Billed requests older than those listed (still in `spentYuan`). */
  readonly billedDropped: number;
}

/** What `LocalGateway.stats()` returns. */
export interface GatewayStats {
  readonly keys: readonly KeyStats[];
  /** Yuan billed over all keys, refunds deducted. */
  readonly billedYuan: number;
  /** Requests that presented no valid key (401 invalid_api_key). */
  readonly unauthenticated: number;
}

/** Token counts and images of a finished chat reply. */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly images: number;
}

/** Yuan a chat reply costs: images x image price for image models, tokens otherwise; 0 when unpriced. */
export function chatCost(model: ModelInfo, usage: ChatUsage, prices: PriceTable): number {
  if (model.capabilities.imageGeneration) {
    const price = prices.image[model.id];
    return price ? roundYuan(usage.images * price.yuan) : 0;
  }
  const price = prices.chat[model.id];
  if (!price) return 0;
  return roundYuan(tokenCost(usage.promptTokens, price.input) + tokenCost(usage.completionTokens, price.output));
}

/** Yuan one music call costs; 0 when unpriced. */
export function musicCost(operation: MusicOperation, prices: PriceTable): number {
  return prices.music[operation]?.yuan ?? 0;
}

/** Sums the bookkeeping of every key. */
export function summarize(keys: readonly KeyStats[], unauthenticated: number): GatewayStats {
  const billedYuan = keys.reduce((sum, key) => roundYuan(sum + key.spentYuan), 0);
  return { keys, billedYuan, unauthenticated };
}
