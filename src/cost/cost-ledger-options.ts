import { z } from "zod";
import { priceOverridesSchema, type PriceOverrides, type PriceTable } from "../catalog/prices.js";
import { ConfigError } from "../errors.js";
import type { BudgetAccount } from "./budget-account.js";
import { costEntrySchema, type CostEntry } from "./cost-entry.js";
import type { CostLedger } from "./cost-ledger.js";

/** Options of a CostLedger. */
export interface CostLedgerOptions {
  /** Prices laid over the published table (what a price file holds). Default: none. */
  readonly prices?: PriceOverrides;
  /** A complete price table used as is instead of published + `prices`. */
  readonly priceTable?: PriceTable;
  /** The run's money cap in yuan. Default: no cap. */
  readonly maxYuan?: number;
  /** A budget shared with other processes: every priced call is also held there, and reservations
   * carry a `ready` promise to await before sending. Unpriced calls are refused as under a cap. */
  readonly account?: BudgetAccount;
  /** Under a cap, run calls that have no price (recorded as unpriced, not counted). Default false:
   * they are refused, because a cap cannot bound what it cannot price. */
  readonly allowUnpriced?: boolean;
  /** Output tokens assumed for a request without an output limit. Default: the model's context
   * window left after the prompt, a hard bound (see estimateOperation). */
  readonly defaultOutputTokens?: number;
  /** Tags added to every entry, e.g. `{ run: "launch-kit" }`. */
  readonly tags?: Readonly<Record<string, string>>;
  /** Entries of an earlier run being resumed: they count toward totals and the cap. */
  readonly entries?: readonly CostEntry[];
  /** A ledger that took in an earlier attempt's entries (`restore`) before this one's cap was known: this ledger
   * goes on from its counts and kept entries, which move here (it is not to be used after). Default: none. */
  readonly restored?: CostLedger;
  /** Which entries `entries()` keeps; the totals and the cap count every entry whatever it says. Default: all.
   * A long batch keeps only what its report shows, and has `onEntry` write the rest to a file. */
  readonly keep?: (entry: CostEntry) => boolean;
  /** Called with each entry as it is recorded, e.g. to append it to a run journal. */
  readonly onEntry?: (entry: CostEntry) => void;
}

const optionsSchema = z.object({
  prices: priceOverridesSchema.optional(),
  maxYuan: z.number().finite().nonnegative().optional(),
  defaultOutputTokens: z.number().int().positive().optional(),
  tags: z.record(z.string(), z.string()).optional(),
  entries: z.array(costEntrySchema).optional(),
});

/** The options whose values zod checks, as checked; a ConfigError naming the first bad option. */
export function parseCostLedgerOptions(options: CostLedgerOptions): z.infer<typeof optionsSchema> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid CostLedger option ${issue.path.join(".")}: ${issue.message}.`);
  }
  return parsed.data;
}
