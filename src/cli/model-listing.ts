import { findModel, listModels, type Capabilities, type ModelInfo } from "../catalog/models.js";
import type { PriceSource, PriceTable } from "../catalog/prices.js";
import type { ModelList } from "../gateway/wire.js";

/** A model's price as the ledger sees it: per 1K tokens, per image, or none. */
export type ListedPrice =
  | { readonly kind: "tokens"; readonly inputPer1K: number; readonly outputPer1K: number; readonly source: PriceSource }
  | { readonly kind: "image"; readonly yuan: number; readonly source: PriceSource }
  | { readonly kind: "unpriced" };

/** One model as `svc-flow models` shows it: the live list joined with catalogue facts. */
export interface ModelListing {
  /** The id as the gateway lists it. */
  readonly id: string;
  /** The catalogue id behind it (differs for a dated version); undefined when the catalogue does not know it. */
  readonly catalogueId?: string;
  /** Whether the key may call it (it is in the live list). */
  readonly callable: boolean;
  /** Catalogue family, or the gateway's `owned_by` for a model the catalogue does not know. */
  readonly family: string;
  readonly tier?: string;
  readonly contextWindow?: number;
  /** What it takes and gives beyond text: vision, audio, video, tools, image-output, reasoning. */
  readonly capabilities: readonly string[];
  /** Parameter rules the client applies, in words. */
  readonly rules: readonly string[];
  readonly price: ListedPrice;
  readonly note?: string;
}

/** What the key may call, and (with `all`) the catalogue models it may not. */
export interface KeyModels {
  readonly models: readonly ModelListing[];
  /** Catalogue models missing from the key's list; empty unless asked for. */
  readonly unavailable: readonly ModelListing[];
}

const CAPABILITY_NAMES: ReadonlyArray<[keyof Capabilities, string]> = [
  ["vision", "vision"],
  ["audio", "audio"],
  ["video", "video"],
  ["tools", "tools"],
  ["imageGeneration", "image-output"],
  ["reasoning", "reasoning"],
];

/** Joins `GET /models` with the catalogue and the price table, in the live list's order. */
export function joinModelList(list: ModelList, prices: PriceTable, options: { all?: boolean } = {}): KeyModels {
  const models = list.data.map((entry) => {
    const info = findModel(entry.id);
    return info === undefined ? unknownListing(entry.id, entry.owned_by) : listing(entry.id, info, prices, true);
  });
  const listed = new Set(models.map((model) => model.catalogueId).filter((id) => id !== undefined));
  const unavailable =
    options.all === true
      ? listModels()
          .filter((info) => !listed.has(info.id))
          .map((info) => listing(info.id, info, prices, false))
      : [];
  return { models, unavailable };
}

function listing(id: string, info: ModelInfo, prices: PriceTable, callable: boolean): ModelListing {
  return {
    id,
    catalogueId: info.id,
    callable,
    family: info.family,
    tier: info.tier,
    ...(info.contextWindow === undefined ? {} : { contextWindow: info.contextWindow }),
    capabilities: CAPABILITY_NAMES.filter(([key]) => info.capabilities[key]).map(([, name]) => name),
    rules: rulesOf(info),
    price: priceOf(info, prices),
    ...(info.note === "" ? {} : { note: info.note }),
  };
}

function unknownListing(id: string, ownedBy: string): ModelListing {
  return {
    id,
    callable: true,
    family: ownedBy,
    capabilities: [],
    rules: ["not in svc-flow's catalogue: capabilities and parameter rules unknown"],
    price: { kind: "unpriced" },
  };
}

function rulesOf(info: ModelInfo): string[] {
  const rules: string[] = [];
  if (info.rules.outputLimitField === "max_completion_tokens") rules.push("output limit sent as max_completion_tokens");
  if (info.rules.rejectsSampling) rules.push("temperature/top_p dropped");
  if (info.rules.minOutputTokens !== undefined) rules.push(`output limit at least ${info.rules.minOutputTokens}`);
  if (info.capabilities.audio) rules.push("audio mp3/wav only");
  return rules;
}

function priceOf(info: ModelInfo, prices: PriceTable): ListedPrice {
  if (info.capabilities.imageGeneration) {
    const price = prices.image[info.id];
    return price === undefined ? { kind: "unpriced" } : { kind: "image", yuan: price.yuan, source: price.source };
  }
  const price = prices.chat[info.id];
  return price === undefined
    ? { kind: "unpriced" }
    : { kind: "tokens", inputPer1K: price.input, outputPer1K: price.output, source: price.source };
}
