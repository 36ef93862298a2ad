import { findModel } from "../catalog/models.js";
import { roundYuan, tokenCost, type MusicOperation, type PriceTable } from "../catalog/prices.js";
import type { EntryPriceSource } from "./cost-entry.js";

// The gateway's billing rule, on the client side: chat models bill prompt and completion tokens at
// their per-1K prices, image models bill per image instead of tokens, music bills per call. The
// local gateway applies the same rule with the same rounding, so ledger and bill agree to 1e-8.

/** What one operation costs, or why it cannot be said. */
export interface OperationCost {
  /** Yuan; undefined when the model or operation has no price. */
  readonly yuan: number | undefined;
  readonly source: EntryPriceSource;
  /** What the price is per: tokens (chat), images (image models), a call (music). */
  readonly basis: "tokens" | "images" | "call";
}

/** Token and image counts of one chat or image call. */
export interface ChatQuantities {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly images: number;
}

/** The catalogue id behind a model name (a dated version maps to its alias); the name otherwise. */
export function catalogueId(model: string): string {
  return findModel(model)?.id ?? model;
}

/** True when the model generates images and so is billed per image (a model outside the
 * catalogue: when it has an image price). */
export function isImageModel(model: string, prices: PriceTable): boolean {
  const info = findModel(model);
  return info ? info.capabilities.imageGeneration : prices.image[model] !== undefined;
}

/** The cost of a chat or image call with the given quantities. */
export function priceChat(model: string, quantities: ChatQuantities, prices: PriceTable): OperationCost {
  const id = catalogueId(model);
  if (isImageModel(id, prices)) {
    const price = prices.image[id];
    if (!price) return { yuan: undefined, source: "unpriced", basis: "images" };
    return { yuan: roundYuan(quantities.images * price.yuan), source: price.source, basis: "images" };
  }
  const price = prices.chat[id];
  if (!price) return { yuan: undefined, source: "unpriced", basis: "tokens" };
  const yuan = roundYuan(
    tokenCost(quantities.promptTokens, price.input) + tokenCost(quantities.completionTokens, price.output),
  );
  return { yuan, source: price.source, basis: "tokens" };
}

/** The cost of one music call. */
export function priceMusic(operation: MusicOperation, prices: PriceTable): OperationCost {
  const price = prices.music[operation];
  if (!price) return { yuan: undefined, source: "unpriced", basis: "call" };
  return { yuan: price.yuan, source: price.source, basis: "call" };
}
