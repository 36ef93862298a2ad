import { roundYuan } from "../catalog/prices.js";
import type { KeyConfig } from "./config.js";
import type { BilledEntry, KeyStats } from "./billing.js";

/** Why a request was refused by the key's limits, with the wait a client should honour. */
export interface LimitRejection {
  readonly code: "rate_limit_exceeded" | "concurrency_limit_exceeded";
  readonly message: string;
  readonly retryAfterS: number;
}

/** Money set aside for one request until its reply is complete; commit or release exactly once. */
export interface QuotaHold {
  /** Bills the hold; returns the ledger's record: the entry with its yuan, not refunded. */
  commit(entry: Omit<BilledEntry, "yuan" | "refunded">): BilledEntry;
  release(): void;
}

const WINDOW_MS = 60_000;
/** Billed requests `stats()` lists per key; older ones are counted, not listed. */
export const ITEMISED_BILLS = 10_000;
// No way to know when a slot frees up; a short wait keeps well-behaved clients busy but polite.
const CONCURRENCY_RETRY_AFTER_S = 0.1;

/** One API key: its quota, limits, deactivation and the record of what it was billed. */
export class KeyAccount {
  readonly name: string;
  readonly quota: number | null;
  readonly #allowed: ReadonlySet<string> | undefined;
  readonly #concurrency: number | undefined;
  readonly #window: number[] = [];
  readonly #rpm: number | undefined;
  #windowNext = 0;
  #spent = 0;
  #held = 0;
  #inFlight = 0;
  #active: boolean;
  #replayed = 0;
  readonly #counts = new Map<string, number>();
  // The most recent billed requests, itemised: a gateway left running would otherwise keep every
  // request it ever billed (and the garbage collector would walk them all). Totals stay exact.
  #billed: BilledEntry[] = [];
  #billedDropped = 0;
  // Music calls not yet refunded, by request id: a refund must find its entry even once the
  // itemised list has moved past it.
  readonly #refundable = new Map<string, BilledEntry>();
  /** Told of every new bill (a gateway with a state folder writes it down). */
  onBilled: ((entry: BilledEntry) => void) | undefined;

  constructor(config: KeyConfig) {
    this.name = config.name ?? `${config.key.slice(0, 3)}...${config.key.slice(-4)}`;
    this.quota = config.quota ?? null;
    this.#allowed = config.models === "*" ? undefined : new Set(config.models);
    this.#rpm = config.rpm;
    this.#concurrency = config.concurrency;
    this.#active = this.quota === null || this.quota > 0;
  }

  /** False once the quota is spent: every interface then answers 401 key_deactivated. */
  get active(): boolean {
    return this.#active;
  }

  /** Whether this key may call a model (by catalogue id). */
  allows(modelId: string): boolean {
    return this.#allowed === undefined || this.#allowed.has(modelId);
  }

  /** Yuan left, or null for an unlimited key. */
  remaining(): number | null {
    return this.quota === null ? null : roundYuan(this.quota - this.#spent);
  }

  /** Admits a request under the rpm and concurrency limits (undefined when admitted); call `release` when it ends. */
  admit(now: number): LimitRejection | undefined {
    if (this.#rpm !== undefined) {
      // A ring of the last `rpm` admission times: full and its oldest inside the window means over.
      const oldest = this.#window.length < this.#rpm ? undefined : this.#window[this.#windowNext];
      if (oldest !== undefined && now - oldest < WINDOW_MS) {
        return {
          code: "rate_limit_exceeded",
          message: `Rate limit of ${this.#rpm} requests per minute reached for this key. Retry after the Retry-After delay.`,
          retryAfterS: Math.ceil(WINDOW_MS - (now - oldest)) / 1000,
        };
      }
    }
    if (this.#concurrency !== undefined && this.#inFlight >= this.#concurrency) {
      return {
        code: "concurrency_limit_exceeded",
        message: `Concurrency limit of ${this.#concurrency} requests in flight reached for this key. Retry when one finishes.`,
        retryAfterS: CONCURRENCY_RETRY_AFTER_S,
      };
    }
    if (this.#rpm !== undefined) {
      this.#window[this.#windowNext] = now;
      this.#windowNext = (this.#windowNext + 1) % this.#rpm;
    }
    this.#inFlight++;
    return undefined;
  }

  /** Frees the slot of an admitted request; call exactly once per admission. */
  release(): void {
    this.#inFlight--;
  }

  /**
   * Sets `yuan` aside for a request; undefined when the balance (other holds included) cannot
   * pay `mustCoverYuan` (default: all of it). Relays bill the actual cost after the call, so a
   * chat request is refused only when the balance cannot pay even its prompt, and the call it
   * admits may take the balance to zero or below: that call deactivates the key (spec 5.4).
   */
  hold(yuan: number, mustCoverYuan = yuan): QuotaHold | undefined {
    const amount = roundYuan(yuan);
    if (this.quota !== null && roundYuan(mustCoverYuan) > roundYuan(this.quota - this.#spent - this.#held))
      return undefined;
    this.#held = roundYuan(this.#held + amount);
    let settled = false;
    const account = this;
    return {
      commit(entry) {
        account.#settle(amount, settled);
        settled = true;
        return account.#bill(amount, entry);
      },
      release() {
        account.#settle(amount, settled);
        settled = true;
      },
    };
  }

  #settle(amount: number, settled: boolean): void {
    if (settled) throw new Error("A quota hold was settled twice.");
    this.#held = roundYuan(this.#held - amount);
  }

  #bill(amount: number, entry: Omit<BilledEntry, "yuan" | "refunded">): BilledEntry {
    const billed: BilledEntry = { ...entry, yuan: amount, refunded: false };
    this.#spent = roundYuan(this.#spent + amount);
    this.#billed.push(billed);
    if (billed.kind === "music") {
      this.#refundable.set(billed.requestId, billed);
      if (this.#refundable.size > ITEMISED_BILLS) this.#refundable.delete(this.#refundable.keys().next().value!);
    }
    // Trimmed in blocks, so each entry is moved at most once.
    if (this.#billed.length >= 2 * ITEMISED_BILLS) {
      this.#billedDropped += this.#billed.length - ITEMISED_BILLS;
      this.#billed = this.#billed.slice(-ITEMISED_BILLS);
    }
    const remaining = this.remaining();
    if (remaining !== null && remaining <= 0) this.#active = false;
    this.onBilled?.(billed);
    return billed;
  }

  /** Books a bill an earlier gateway made (read back from its state folder), without telling onBilled. */
  restoreBilled(entry: BilledEntry): void {
    const listener = this.onBilled;
    this.onBilled = undefined;
    try {
      const { yuan, refunded, ...rest } = entry;
      this.#bill(yuan, rest);
    } finally {
      this.onBilled = listener;
    }
  }

  /** Gives back what a failed job was billed; a key deactivated by that charge becomes active again. */
  refund(requestId: string): void {
    const entry = this.#refundable.get(requestId);
    if (!entry) return;
    this.#refundable.delete(requestId);
    // A failed job is refunded soon after it was billed: its listed entry is near the end, if listed.
    const index = this.#billed.lastIndexOf(entry);
    if (index !== -1) this.#billed[index] = Object.assign({}, entry, { refunded: true });
    this.#spent = roundYuan(this.#spent - entry.yuan);
    const remaining = this.remaining();
    if (remaining === null || remaining > 0) this.#active = true;
  }

  /** Counts one finished request by its status ("dropped" for a cut connection). */
  count(status: number | "dropped"): void {
    const key = String(status);
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** Counts one request answered by replaying a stored response (not billed). */
  countReplay(): void {
    this.#replayed++;
  }

  /** A snapshot of this key's bookkeeping. */
  stats(): KeyStats {
    const byStatus = Object.fromEntries(this.#counts);
    return {
      name: this.name,
      quota: this.quota,
      spentYuan: this.#spent,
      remainingYuan: this.remaining(),
      active: this.#active,
      inFlight: this.#inFlight,
      requests: {
        total: [...this.#counts.values()].reduce((sum, count) => sum + count, 0),
        byStatus,
        rateLimited: byStatus["429"] ?? 0,
        replayed: this.#replayed,
      },
      billed: this.#billed.slice(-ITEMISED_BILLS),
      billedDropped: this.#billedDropped + Math.max(0, this.#billed.length - ITEMISED_BILLS),
    };
  }
}
