import { CostLedger } from "../../cost/cost-ledger.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import type { CostJournal } from "../run/cost-journal.js";
import type { ItemPricing } from "./run-pricing.js";
import type { ItemBudget } from "./run-budget.js";

/** What the ledger of one execution of an item is made from. */
export interface ItemLedgerOptions {
  readonly pricing: ItemPricing;
  /** The run's budget as this execution holds on it; undefined when the run has none. */
  readonly account: ItemBudget | undefined;
  readonly allowUnpriced: boolean | undefined;
  /** The cost entries earlier executions of the item journaled (none on a first run). */
  readonly restored: readonly CostEntry[];
  /** Where each new entry is journaled: the item's journal. */
  readonly costs: CostJournal;
  /** Called with each new entry too (a step's report). */
  readonly onEntry: (entry: CostEntry) => void;
}

/**
 * The cost ledger of one execution of an item. Its entries are journaled with the item (the enqueuer
 * totals them into cost.json), and the account's writes go on the same connection after each one, so
 * a journaled cost has reached the budget too.
 *
 * A re-run item (its worker died) starts from the costs its earlier executions journaled, as a
 * one-machine resume does, and the ledger counts each billed request id once. The gateway bills a
 * request once: a repeat of its Idempotency-Key replays the answer with the billed x-request-id and
 * is not billed again. So a replay of a journaled bill (in cost.json and, written after it, in
 * Redis's spent) is recorded at 0. A replay of a bill the dead worker was answered for but never
 * journaled (nor settled: the settle comes after the journal write) has no entry: it is the only
 * record of that bill, so it counts in full and settles on spent now, against the hold the dead
 * worker left. A music call's bill is journaled with its job's clip ids, so the new execution looks
 * a job the dead worker paid for up: one that failed was refunded (and forgotten) by the gateway, so
 * its refund is recorded once and the step's repeat is a new bill with a new id, counted as one.
 */
export function createItemLedger(options: ItemLedgerOptions): CostLedger {
  const { account, allowUnpriced, restored, costs } = options;
  const ledger = new CostLedger({
    priceTable: options.pricing.priceTable,
    ...(account === undefined ? {} : { account }),
    ...(allowUnpriced === undefined ? {} : { allowUnpriced }),
    entries: restored,
    onEntry: (entry) => {
      options.onEntry(entry);
      void costs.append(entry).catch(() => undefined);
    },
  });
  // A refund is journaled just before it is written to Redis, so one may be journaled and lost with
  // its worker. Redis takes a refunded bill off once, by its request id (and never one it did not
  // settle): sending every journaled refund again is safe, and lands a lost one.
  for (const entry of restored)
    if (entry.status === "refunded" && entry.requestId !== undefined) account?.refund(entry.requestId);
  return ledger;
}
