import { z } from "zod";
import { mergePrices, priceOverridesSchema, type PriceOverrides, type PriceTable } from "../../catalog/prices.js";
import { parsePriceText } from "../../cost/load-price-file.js";
import type { RunStore } from "./run-store.js";

/** How a distributed run prices its calls: what `--prices FILE` and `--allow-unpriced` gave it. */
export interface PricingSettings {
  /** Prices laid over the published table (a price file's content). Default: the published prices. */
  readonly prices?: PriceOverrides;
  /** Under the run's budget, run calls that have no price (recorded as unpriced). Default: the workflow's `budget.allowUnpriced`. */
  readonly allowUnpriced?: boolean;
}

/** What a worker prices one item's calls by. */
export interface ItemPricing {
  readonly priceTable: PriceTable;
  readonly allowUnpriced?: boolean;
}

const storedSchema = z.object({
  prices: z
    .string()
    .nullable()
    .transform((text) => (text === null ? undefined : priceOverridesSchema.parse(JSON.parse(text)))),
  allowUnpriced: z
    .enum(["true", "false"])
    .nullable()
    .transform((text) => (text === null ? undefined : text === "true")),
});

/**
 * Checks prices handed to a distributed run as a price file is checked (known catalogue ids, each
 * priced where its model is billed), so a bad table fails before anything is enqueued.
 */
export function checkPrices(prices: PriceOverrides): PriceOverrides {
  return parsePriceText(JSON.stringify(prices, null, 2), "the prices given for the run");
}

/**
 * A distributed run's prices and unpriced policy, stored with the run in Redis so that every
 * worker, on any machine, prices the run's calls alike, whatever its own flags. Workers read it as
 * each item starts, so `resume --prices` reaches workers already running the run's items.
 */
export class RunPricing {
  readonly #store: RunStore;
  readonly #key: string;
  #cached: { text: string; pricing: ItemPricing } | undefined;

  constructor(store: RunStore, runId: string) {
    this.#store = store;
    this.#key = store.keyOf(runId, "pricing");
  }

  /** Stores what is given; a field left out keeps what is stored (resume without --prices keeps the run's prices). */
  async save(settings: PricingSettings): Promise<void> {
    const fields: Record<string, string> = {};
    if (settings.prices !== undefined) fields.prices = JSON.stringify(priceOverridesSchema.parse(settings.prices));
    if (settings.allowUnpriced !== undefined) fields.allowUnpriced = String(settings.allowUnpriced);
    if (Object.keys(fields).length > 0) await this.#store.redis.hset(this.#key, fields);
  }

  /** The stored settings (none for a run enqueued without them). */
  async settings(): Promise<PricingSettings> {
    return parseStored(await this.#raw());
  }

  /** The price table and policy for an item about to run; parsed again only when the stored settings changed. */
  async forItem(): Promise<ItemPricing> {
    const raw = await this.#raw();
    const text = JSON.stringify(raw);
    if (this.#cached?.text === text) return this.#cached.pricing;
    const { prices, allowUnpriced } = parseStored(raw);
    const pricing = { priceTable: mergePrices(prices), ...(allowUnpriced === undefined ? {} : { allowUnpriced }) };
    this.#cached = { text, pricing };
    return pricing;
  }

  async #raw(): Promise<[prices: string | null, allowUnpriced: string | null]> {
    const [prices = null, allowUnpriced = null] = await this.#store.redis.hmget(this.#key, "prices", "allowUnpriced");
    return [prices, allowUnpriced];
  }
}

function parseStored([prices, allowUnpriced]: [string | null, string | null]): PricingSettings {
  const stored = storedSchema.parse({ prices, allowUnpriced });
  return {
    ...(stored.prices === undefined ? {} : { prices: stored.prices }),
    ...(stored.allowUnpriced === undefined ? {} : { allowUnpriced: stored.allowUnpriced }),
  };
}
