import { CostLedger } from "../../cost/cost-ledger.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import { CostCallsFile } from "./cost-calls-file.js";

/**
 * The bills of a run's earlier attempts, taken in one at a time as resume reads the journal: counted on a ledger
 * that the run's own ledger goes on from once its budget is known (CostLedger's `restored`), and written to the
 * cost-calls file in journal order. So a resumed batch never holds its finished rows' bills all at once.
 */
export class RestoredCosts {
  /** The earlier bills' counts, without a cap: the run's ledger takes them over. */
  readonly ledger: CostLedger;
  /** cost.json's calls of this attempt, the earlier bills first. */
  readonly calls: CostCallsFile;
  #unpricedCalls = 0;

  /** `keep` says which entries the run's ledger keeps (its `keep`); a new run restores nothing. */
  constructor(runDir: string, keep: (entry: CostEntry) => boolean) {
    this.ledger = new CostLedger({ keep });
    this.calls = new CostCallsFile(runDir);
  }

  /** Takes in an earlier attempt's bill, in journal order. */
  add(entry: CostEntry): void {
    this.ledger.restore(entry);
    this.calls.append(entry);
    if (isUnpricedCall(entry)) this.#unpricedCalls++;
  }

  /** Bills taken in that were billed without a known price (refunds aside). */
  get unpricedCalls(): number {
    return this.#unpricedCalls;
  }
}

/** Whether an entry is a call billed without a known price (a refund is not a call). */
export function isUnpricedCall(entry: CostEntry): boolean {
  return entry.yuan === undefined && entry.status !== "refunded";
}
