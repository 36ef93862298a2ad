import { z } from "zod";

/** Music operations the gateway prices per call. */
export const MUSIC_OPERATIONS = ["generate", "continuation", "stems", "lyrics", "concatenation", "get_limit"] as const;
export type MusicOperation = (typeof MUSIC_OPERATIONS)[number];

/** Where a price comes from: the spec's published figure, or a price file/config override. */
export type PriceSource = "published" | "override";

/** Token prices in yuan per 1K tokens. */
export interface TokenPrice {
  readonly input: number;
  readonly output: number;
  readonly source: PriceSource;
}

/** A per-unit price in yuan (per image, per music call). */
export interface UnitPrice {
  readonly yuan: number;
  readonly source: PriceSource;
}

/** The full price table: chat tokens, images, music calls. Missing entries are unpriced. */
export interface PriceTable {
  readonly chat: Readonly<Record<string, TokenPrice>>;
  readonly image: Readonly<Record<string, UnitPrice>>;
  readonly music: Readonly<Partial<Record<MusicOperation, UnitPrice>>>;
}

/** The prices the spec publishes, and nothing else: every other model is unpriced. */
export const PUBLISHED_PRICES: PriceTable = {
  chat: { "alpha-sonnet-4-6": { input: 0.032, output: 0.1598, source: "published" } },
  image: { "gamma-2.5-flash-image": { yuan: 0.42, source: "published" } },
  music: {
    generate: { yuan: 2, source: "published" },
    continuation: { yuan: 1, source: "published" },
    stems: { yuan: 1, source: "published" },
    lyrics: { yuan: 0.2, source: "published" },
    concatenation: { yuan: 0.5, source: "published" },
    get_limit: { yuan: 0, source: "published" },
  },
};

const yuan = z.number().finite().nonnegative();

/** The shape of a price override, as written in a price file or the gateway config's `prices`. */
export const priceOverridesSchema = z
  .object({
    chat: z.record(z.string(), z.object({ input: yuan, output: yuan }).strict()).optional(),
    image: z.record(z.string(), yuan).optional(),
    music: z.partialRecord(z.enum(MUSIC_OPERATIONS), yuan).optional(),
  })
  .strict();
export type PriceOverrides = z.infer<typeof priceOverridesSchema>;

/** The published table with overrides laid over it; overrides win and are marked as such. */
export function mergePrices(overrides: PriceOverrides = {}, base: PriceTable = PUBLISHED_PRICES): PriceTable {
  const chat: Record<string, TokenPrice> = { ...base.chat };
  for (const [id, price] of Object.entries(overrides.chat ?? {})) {
    chat[id] = { ...price, source: "override" };
  }
  const image: Record<string, UnitPrice> = { ...base.image };
  for (const [id, price] of Object.entries(overrides.image ?? {})) {
    image[id] = { yuan: price, source: "override" };
  }
  const music: Partial<Record<MusicOperation, UnitPrice>> = { ...base.music };
  for (const [operation, price] of Object.entries(overrides.music ?? {})) {
    if (price !== undefined) music[operation as MusicOperation] = { yuan: price, source: "override" };
  }
  return { chat, image, music };
}

/** Yuan for a token count at a per-1K price, rounded to 1e-8 so sums stay exact enough. */
export function tokenCost(tokens: number, pricePer1K: number): number {
  return roundYuan((tokens * pricePer1K) / 1000);
}

/** Rounds a yuan amount to 1e-8, the precision the ledger and the local gateway both keep. */
export function roundYuan(amount: number): number {
  return Math.round(amount * 1e8) / 1e8;
}
