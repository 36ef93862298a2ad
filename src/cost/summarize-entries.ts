import { roundYuan } from "../catalog/prices.js";
import type { CostEntry } from "./cost-entry.js";

/** Totals of a group of entries (one model, one tag value, or everything). */
export interface CostTotals {
  /** Entries (attempts), failed ones included. */
  calls: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  images: number;
  /** Sum of the priced entries; null when everything billed in the group is unpriced. */
  yuan: number | null;
  /** Entries that were billed without a known price: their yuan is not in `yuan`. */
  unpricedCalls: number;
  /** Prompt plus completion tokens of the unpriced entries. */
  unpricedTokens: number;
  /** Music calls the gateway refunded (their jobs failed); their yuan is taken off `yuan`. */
  refunds: number;
}

/** The ledger's summary, for programs (`cost.json`). */
export interface CostSummary {
  readonly currency: "CNY";
  /** Sum of every priced entry, in yuan. Unpriced usage is in `unpriced`, never counted as 0. */
  readonly totalYuan: number;
  /** True when nothing unpriced was billed, so `totalYuan` is the whole cost. */
  readonly complete: boolean;
  /** Attempts recorded (refunds are not attempts). */
  readonly entries: number;
  readonly failedAttempts: number;
  /** Music calls refunded after their job failed. */
  readonly refunds: number;
  /** Entries whose actual cost came out above their reserved estimate. */
  readonly exceededEstimates: number;
  /** Answered calls whose usage never arrived; they hold their reserved bound instead. */
  readonly usageMissing: number;
  /** Calls the gateway answered by replaying an earlier bill (idempotency key); each bill counts once. */
  readonly replayed: number;
  readonly unpriced: { calls: number; promptTokens: number; completionTokens: number; models: string[] };
  /** By catalogue model id; music calls under `music:<operation>`. */
  readonly byModel: Record<string, CostTotals>;
  /** By tag name, then tag value (e.g. `byTag.step.ideas`). */
  readonly byTag: Record<string, Record<string, CostTotals>>;
  /** Present when the ledger has a budget. */
  readonly budget?: { maxYuan: number; spentYuan: number; heldYuan: number; remainingYuan: number };
}

/** Two groups' totals as one (a step's totals handed over, and entries that came after). */
export function mergeTotals(left: CostTotals, right: CostTotals): CostTotals {
  return {
    calls: left.calls + right.calls,
    failed: left.failed + right.failed,
    promptTokens: left.promptTokens + right.promptTokens,
    completionTokens: left.completionTokens + right.completionTokens,
    reasoningTokens: left.reasoningTokens + right.reasoningTokens,
    images: left.images + right.images,
    yuan: left.yuan === null && right.yuan === null ? null : roundYuan((left.yuan ?? 0) + (right.yuan ?? 0)),
    unpricedCalls: left.unpricedCalls + right.unpricedCalls,
    unpricedTokens: left.unpricedTokens + right.unpricedTokens,
    refunds: left.refunds + right.refunds,
  };
}

/** Empty totals. */
export function emptyTotals(): CostTotals {
  return {
    calls: 0,
    failed: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    images: 0,
    yuan: null,
    unpricedCalls: 0,
    unpricedTokens: 0,
    refunds: 0,
  };
}

/** Adds one entry into a group's totals; a refund only takes its yuan back off. */
export function addToTotals(totals: CostTotals, entry: CostEntry): void {
  if (entry.status === "refunded") {
    totals.refunds += 1;
    if (entry.yuan !== undefined) totals.yuan = roundYuan((totals.yuan ?? 0) + entry.yuan);
    return;
  }
  totals.calls += 1;
  if (entry.status === "failed") totals.failed += 1;
  totals.promptTokens += entry.promptTokens;
  totals.completionTokens += entry.completionTokens;
  totals.reasoningTokens += entry.reasoningTokens;
  totals.images += entry.images;
  if (entry.yuan === undefined) {
    totals.unpricedCalls += 1;
    totals.unpricedTokens += entry.promptTokens + entry.completionTokens;
  } else {
    totals.yuan = roundYuan((totals.yuan ?? 0) + entry.yuan);
  }
}

/** The group an entry belongs to in `byModel`. */
export function modelKey(entry: CostEntry): string {
  if (entry.kind === "music") return `music:${entry.musicOperation ?? "unknown"}`;
  return entry.modelRequested ?? entry.modelServed ?? "unknown";
}

/** Summarizes entries by model and by tag. */
export function summarizeEntries(entries: readonly CostEntry[]): CostSummary {
  const totals = new RunningTotals();
  for (const entry of entries) totals.add(entry);
  return totals.summary();
}

/** The summary of entries added one at a time, so a ledger need not keep every entry to give its totals. */
export class RunningTotals {
  readonly #total = emptyTotals();
  readonly #byModel: Record<string, CostTotals> = {};
  readonly #byTag: Record<string, Record<string, CostTotals>> = {};
  readonly #unpricedModels = new Set<string>();
  #unpricedPrompt = 0;
  #unpricedCompletion = 0;
  #exceededEstimates = 0;
  #usageMissing = 0;
  #replayed = 0;

  /** Counts one entry. */
  add(entry: CostEntry): void {
    addToTotals(this.#total, entry);
    addToTotals((this.#byModel[modelKey(entry)] ??= emptyTotals()), entry);
    const tags = entry.tags;
    for (const name in tags) {
      addToTotals(((this.#byTag[name] ??= {})[tags[name]!] ??= emptyTotals()), entry);
    }
    if (entry.exceededEstimate) this.#exceededEstimates += 1;
    if (entry.usageMissing) this.#usageMissing += 1;
    if (entry.replayed) this.#replayed += 1;
    if (entry.yuan === undefined && entry.status !== "refunded") {
      this.#unpricedModels.add(modelKey(entry));
      this.#unpricedPrompt += entry.promptTokens;
      this.#unpricedCompletion += entry.completionTokens;
    }
  }

  /** Removes the totals of one tag value and returns them (undefined when it has none): later entries start anew. */
  take(name: string, value: string): CostTotals | undefined {
    const groups = this.#byTag[name];
    const totals = groups?.[value];
    if (totals !== undefined) delete groups![value];
    return totals;
  }

  /** The totals so far, as a summary of its own (later entries do not change it). */
  summary(): CostSummary {
    const total = this.#total;
    return {
      currency: "CNY",
      totalYuan: total.yuan ?? 0,
      complete: total.unpricedCalls === 0,
      entries: total.calls,
      failedAttempts: total.failed,
      refunds: total.refunds,
      exceededEstimates: this.#exceededEstimates,
      usageMissing: this.#usageMissing,
      replayed: this.#replayed,
      unpriced: {
        calls: total.unpricedCalls,
        promptTokens: this.#unpricedPrompt,
        completionTokens: this.#unpricedCompletion,
        models: [...this.#unpricedModels].sort(),
      },
      byModel: copyGroups(this.#byModel),
      byTag: Object.fromEntries(Object.entries(this.#byTag).map(([name, groups]) => [name, copyGroups(groups)])),
    };
  }
}

function copyGroups(groups: Record<string, CostTotals>): Record<string, CostTotals> {
  return Object.fromEntries(Object.entries(groups).map(([key, totals]) => [key, { ...totals }]));
}
