import { roundYuan } from "../../catalog/prices.js";
import type { CostEntry } from "../../cost/cost-entry.js";

/** What one step's calls cost and how they went, gathered from the ledger's entries as they settle. */
export class StepReport {
  attempts = 0;
  costYuan = 0;
  unpriced = false;
  readonly fallbacks: string[] = [];
  readonly #costByRequest = new Map<string, number>();

  /** What the call with this request id cost, once its entry arrived (undefined: unpriced or unknown). */
  costOf(requestId: string): number | undefined {
    return this.#costByRequest.get(requestId);
  }

  /** Adds a ledger entry of this step; returns whether it was a failed attempt. */
  add(entry: CostEntry): boolean {
    if (entry.status !== "refunded") this.attempts++;
    if (entry.yuan === undefined) {
      if (entry.status === "ok") this.unpriced = true;
    } else {
      this.costYuan = roundYuan(this.costYuan + entry.yuan);
      if (entry.requestId !== undefined) this.#costByRequest.set(entry.requestId, entry.yuan);
    }
    return entry.status === "failed";
  }
}
