import { z } from "zod";
import { MUSIC_OPERATIONS } from "../catalog/prices.js";

/** Where an entry's price came from; `unpriced` when no price is known for what was billed. */
export const ENTRY_PRICE_SOURCES = ["published", "override", "unpriced"] as const;
export type EntryPriceSource = (typeof ENTRY_PRICE_SOURCES)[number];

const count = z.number().int().nonnegative();

/** One billed (or attempted) operation, as the ledger records it and a run journal stores it. */
export const costEntrySchema = z
  .object({
    /** When the operation was settled, ISO 8601. */
    time: z.string(),
    kind: z.enum(["chat", "image", "music"]),
    /** The catalogue id that was asked for (the attempt's model, after any fallback). */
    modelRequested: z.string().optional(),
    /** The model the gateway reports as having served (may be a dated version). */
    modelServed: z.string().optional(),
    musicOperation: z.enum(MUSIC_OPERATIONS).optional(),
    promptTokens: count,
    /** Completion tokens as billed; reasoning tokens are part of them. */
    completionTokens: count,
    reasoningTokens: count,
    images: count,
    /** Yuan billed (negative on a refund); undefined when something was billed but no price is known. */
    yuan: z.number().optional(),
    priceSource: z.enum(ENTRY_PRICE_SOURCES),
    /** `refunded`: the gateway gave back a music call whose job failed later (see CostLedger.refund). */
    status: z.enum(["ok", "failed", "refunded"]),
    errorCode: z.string().optional(),
    requestId: z.string().optional(),
    tags: z.record(z.string(), z.string()),
    /** The reserved upper bound, when the operation was priced before sending. */
    estimateYuan: z.number().nonnegative().optional(),
    /** True when the actual cost came out above the reserved estimate (an assumption did not hold). */
    exceededEstimate: z.boolean().optional(),
    /** True when the call was answered but its usage never arrived: the entry holds the reserved bound. */
    usageMissing: z.boolean().optional(),
    /** True when the gateway replayed the stored answer of an earlier request with the same
     * idempotency key (`requestId` is that request's): the gateway billed it once, by that request. */
    replayed: z.boolean().optional(),
    /** A replay whose billed request already has an entry in this ledger: recorded with no tokens and
     * no cost, so one bill is counted once however often it is replayed. */
    alreadyRecorded: z.boolean().optional(),
  })
  .refine((entry) => entry.yuan === undefined || entry.yuan >= 0 || entry.status === "refunded", {
    message: "Only a refund has a negative yuan amount.",
    path: ["yuan"],
  });

/** A ledger entry. */
export type CostEntry = z.infer<typeof costEntrySchema>;

/** True when the gateway billed something whose price is unknown. */
export function isUnpricedEntry(entry: CostEntry): boolean {
  return entry.yuan === undefined;
}
