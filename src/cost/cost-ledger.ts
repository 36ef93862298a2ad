import { mergePrices, roundYuan, type PriceTable } from "../catalog/prices.js";
import { SvcFlowError } from "../errors.js";
import type { OperationOutcome, PlannedOperation, UsageRecorder, UsageReservation } from "../gateway/usage-recorder.js";
import { holdOnAccount, type BudgetAccount } from "./budget-account.js";
import { overBudgetError, unpricedUnderBudgetError } from "./budget-errors.js";
import { alreadyRecordedEntry, buildEntry } from "./build-entry.js";
import { parseCostLedgerOptions, type CostLedgerOptions } from "./cost-ledger-options.js";
import type { CostEntry } from "./cost-entry.js";
import { estimateOperation, estimatePlan, type OperationEstimate, type PlanEstimate } from "./estimate-operation.js";
import { formatSummaryTable } from "./format-summary-table.js";
import { RunningTotals, type CostSummary, type CostTotals } from "./summarize-entries.js";

export type { CostLedgerOptions } from "./cost-ledger-options.js";

/** A hold on budget for one operation, with the estimate it holds. */
export interface CostReservation extends UsageReservation {
  readonly estimate: OperationEstimate;
}

/** Per-run cost accounting: an entry for every billed attempt, estimates, and a cap that holds
 * under concurrency because every call reserves its upper bound before it is sent. */
export class CostLedger implements UsageRecorder {
  /** The prices in force: published, with overrides marked as such. */
  readonly prices: PriceTable;
  /** The cap in yuan, when there is one. */
  readonly maxYuan: number | undefined;
  readonly #allowUnpriced: boolean;
  readonly #defaultOutputTokens: number | undefined;
  readonly #tags: Readonly<Record<string, string>>;
  readonly #onEntry: ((entry: CostEntry) => void) | undefined;
  readonly #account: BudgetAccount | undefined;
  readonly #keep: (entry: CostEntry) => boolean;
  #entries: CostEntry[] = [];
  #totals = new RunningTotals();
  /** Paid music calls by request id (the first of each), which a refund takes back. */
  #paidMusic = new Map<string, CostEntry>();
  #refunded = new Set<string>();
  /** Request ids of the gateway bills this ledger has counted (restored entries included), until their step ends. */
  #countedRequests = new Set<string>();
  /** The request ids above (and in the music maps) of each step instance still going, to forget when it ends. */
  #stepRequests = new Map<string, string[]>();
  #spentYuan = 0;
  #heldYuan = 0;

  constructor(options: CostLedgerOptions = {}) {
    const parsed = parseCostLedgerOptions(options);
    this.prices = options.priceTable ?? mergePrices(parsed.prices);
    this.maxYuan = parsed.maxYuan;
    this.#allowUnpriced = options.allowUnpriced ?? false;
    this.#defaultOutputTokens = parsed.defaultOutputTokens;
    this.#tags = Object.freeze({ ...parsed.tags });
    this.#onEntry = options.onEntry;
    this.#account = options.account;
    this.#keep = options.keep ?? (() => true);
    if (options.restored !== undefined) this.#takeCounts(options.restored);
    // Restored entries are already in the journal they came from, so onEntry is not told again.
    for (const entry of parsed.entries ?? []) this.#add(entry, false);
  }

  /**
   * Counts an entry of an earlier attempt, as the `entries` option does, one at a time: a resume takes in its
   * journal's bills as it reads them, on a ledger that a run's own ledger then goes on from (`restored`).
   */
  restore(entry: CostEntry): void {
    this.#add(entry, false);
  }

  /** Yuan of every priced entry so far. */
  get spentYuan(): number {
    return this.#spentYuan;
  }

  /** Yuan reserved by calls in flight. */
  get heldYuan(): number {
    return this.#heldYuan;
  }

  /** What the cap still allows (spent and held taken off); undefined without a cap. */
  get remainingYuan(): number | undefined {
    return this.maxYuan === undefined ? undefined : roundYuan(this.maxYuan - this.#spentYuan - this.#heldYuan);
  }

  /** The upper bound of one operation's cost, before sending it. */
  estimate(operation: PlannedOperation): OperationEstimate {
    return estimateOperation(operation, { prices: this.prices, defaultOutputTokens: this.#defaultOutputTokens });
  }

  /** The bound of a list of operations (a workflow's calls), with what is unpriced. */
  estimatePlan(operations: readonly PlannedOperation[]): PlanEstimate {
    return estimatePlan(operations, { prices: this.prices, defaultOutputTokens: this.#defaultOutputTokens });
  }

  /** Reserves an operation's upper bound; a BudgetExceededError, before anything is sent, when the
   * cap cannot take it. Synchronous, so concurrent callers can never overdraw the cap together.
   * With an account, the shared cap answers through the reservation's `ready`. */
  reserve(operation: PlannedOperation, scopeTags?: Readonly<Record<string, string>>): CostReservation {
    return this.#reserve(
      operation,
      scopeTags === undefined ? this.#tags : Object.freeze({ ...this.#tags, ...scopeTags }),
    );
  }

  // `baseTags` (frozen) are shared by the entries of every operation that adds no tags of its own.
  #reserve(operation: PlannedOperation, baseTags: Readonly<Record<string, string>>): CostReservation {
    const estimate = this.estimate(operation);
    const tags = operation.tags === undefined ? baseTags : { ...baseTags, ...operation.tags };
    if (this.maxYuan !== undefined || this.#account !== undefined) this.#checkBudget(estimate);
    const hold = estimate.yuan ?? 0;
    const shared =
      this.#account === undefined || estimate.yuan === undefined
        ? undefined
        : holdOnAccount(this.#account, estimate, estimate.yuan);
    this.#heldYuan = roundYuan(this.#heldYuan + hold);
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      this.#heldYuan = roundYuan(this.#heldYuan - hold);
      return true;
    };
    return {
      estimate,
      ...(shared === undefined ? {} : { ready: shared.ready }),
      settle: (outcome: OperationOutcome) => {
        if (!close()) {
          throw new SvcFlowError("reservation_closed", "This reservation was already settled or released.");
        }
        const built = buildEntry(operation, estimate, outcome, { prices: this.prices, tags, time: new Date() });
        const entry = this.#isCounted(outcome) ? alreadyRecordedEntry(built) : built;
        this.#add(entry);
        // In the same tick as onEntry: an account sharing the journal's connection lands the cost
        // before any later journal record (the step's), so a journaled step's cost is never lost.
        shared?.settle(entry.yuan ?? 0, refundIdOf(entry));
      },
      // Release after settle does nothing, so callers can release in a `finally`.
      release: () => {
        if (close()) shared?.release();
      },
    };
  }

  /** A recorder that adds tags (e.g. `{ step: "ideas" }`) to its entries and shares this cap. */
  tagged(tags: Readonly<Record<string, string>>): UsageRecorder {
    const merged = Object.freeze({ ...this.#tags, ...tags });
    return { reserve: (operation) => this.#reserve(operation, merged) };
  }

  /** Records that the gateway refunded a music call whose job failed after it was accepted (a
   * clip came back failed): the call's yuan is taken back off, here and on the account it was
   * settled on. Returns the refund entry, or undefined when no paid, unrefunded call has this request id. */
  refund(requestId: string, errorCode = "music_failed"): CostEntry | undefined {
    const paid = this.#paidMusic.get(requestId);
    if (!paid?.yuan || this.#refunded.has(requestId)) return undefined;
    const { estimateYuan: _estimate, ...rest } = paid;
    const entry: CostEntry = {
      ...rest,
      time: new Date().toISOString(),
      status: "refunded",
      errorCode,
      yuan: -paid.yuan,
    };
    this.#add(entry);
    // The account decides by request id, as it settled: a restored entry whose bill it settled (a
    // distributed item taken over from a dead worker) comes off once; one that predates it (a cap
    // set on resume) was never in its spent and changes nothing there.
    this.#account?.refund(requestId);
    return entry;
  }

  /**
   * Ends step instance `key` (the `step` tag): nothing more will be recorded for it. The request ids of its bills
   * are forgotten, since a replay can only name a bill of its own step (its idempotency key carries the step's
   * key); with `release`, its totals leave `summary().byTag.step` and are returned, for the caller to keep
   * elsewhere (a long batch writes its rows' totals to a file). Keeps a run's memory flat however many steps end.
   */
  endStep(key: string, options: { readonly release?: boolean } = {}): CostTotals | undefined {
    for (const requestId of this.#stepRequests.get(key) ?? []) {
      this.#countedRequests.delete(requestId);
      this.#paidMusic.delete(requestId);
      this.#refunded.delete(requestId);
    }
    this.#stepRequests.delete(key);
    return options.release === true ? this.#totals.take("step", key) : undefined;
  }

  /** Every entry so far that `keep` kept (by default all), oldest first; the totals count every entry. */
  entries(): readonly CostEntry[] {
    return this.#entries;
  }

  /** Totals by model and tag, for programs (`cost.json`). */
  summary(): CostSummary {
    const summary = this.#totals.summary();
    if (this.maxYuan === undefined) return summary;
    return {
      ...summary,
      budget: {
        maxYuan: this.maxYuan,
        spentYuan: this.#spentYuan,
        heldYuan: this.#heldYuan,
        remainingYuan: this.remainingYuan ?? 0,
      },
    };
  }

  /** The summary as an aligned text table for people. */
  formatSummaryTable(): string {
    return formatSummaryTable(this.summary());
  }

  // The rule for idempotency replays: the gateway bills a request once, so the ledger counts each
  // billed request id once. A replay of a bill this ledger (or the run it resumes) already counted
  // is recorded at 0; any other replay is the only record of that bill (the first attempt failed on
  // our side and was settled failed/0, or its entry died with a killed process) and counts in full.
  #isCounted(outcome: OperationOutcome): boolean {
    return (
      outcome.replayed === true &&
      outcome.status === "ok" &&
      outcome.requestId !== undefined &&
      this.#countedRequests.has(outcome.requestId)
    );
  }

  #add(entry: CostEntry, notify = true): void {
    if (this.#keep(entry)) this.#entries.push(entry);
    this.#totals.add(entry);
    if (entry.status === "ok" && entry.requestId !== undefined) this.#countedRequests.add(entry.requestId);
    const step = entry.tags.step;
    if (entry.requestId !== undefined && step !== undefined) {
      const requests = this.#stepRequests.get(step);
      if (requests === undefined) this.#stepRequests.set(step, [entry.requestId]);
      else requests.push(entry.requestId);
    }
    if (entry.requestId !== undefined && entry.kind === "music") {
      if (entry.status === "refunded") this.#refunded.add(entry.requestId);
      else if (entry.status === "ok" && !this.#paidMusic.has(entry.requestId))
        this.#paidMusic.set(entry.requestId, entry);
    }
    if (entry.yuan !== undefined) this.#spentYuan = roundYuan(this.#spentYuan + entry.yuan);
    if (notify) this.#onEntry?.(entry);
  }

  // The counts move, not copies: `from` is not used again.
  #takeCounts(from: CostLedger): void {
    this.#entries = from.#entries;
    this.#totals = from.#totals;
    this.#paidMusic = from.#paidMusic;
    this.#refunded = from.#refunded;
    this.#countedRequests = from.#countedRequests;
    this.#stepRequests = from.#stepRequests;
    this.#spentYuan = from.#spentYuan;
  }

  #checkBudget(estimate: OperationEstimate): void {
    const maxYuan = this.maxYuan;
    if (estimate.yuan === undefined) {
      if (this.#allowUnpriced) return;
      throw unpricedUnderBudgetError(estimate, maxYuan);
    }
    // Without a cap here, the account alone decides (asynchronously, through `ready`).
    if (maxYuan === undefined || roundYuan(this.#spentYuan + this.#heldYuan + estimate.yuan) <= maxYuan) return;
    throw overBudgetError(estimate, { maxYuan, spentYuan: this.#spentYuan, heldYuan: this.#heldYuan });
  }
}

// A bill the gateway may refund later (a paid music call) is settled with its request id, so the account can take it back off.
function refundIdOf(entry: CostEntry): string | undefined {
  return entry.kind === "music" && entry.status === "ok" && (entry.yuan ?? 0) > 0 ? entry.requestId : undefined;
}
