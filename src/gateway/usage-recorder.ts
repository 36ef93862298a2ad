import type { MusicOperation } from "../catalog/prices.js";
import type { ChatRequest, Usage } from "./wire.js";

// The seam between the clients (which know what they send and what came back) and the cost
// ledger (which knows prices and budgets). The clients depend only on this interface, so the
// dependency arrow stays catalog <- gateway <- chat <- cost.

/** A billable operation about to be sent. */
export type PlannedOperation =
  | {
      readonly kind: "chat";
      /** The request exactly as it will go on the wire (model, messages, output limit). */
      readonly request: ChatRequest;
      readonly tags?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: "music";
      readonly operation: MusicOperation;
      readonly tags?: Readonly<Record<string, string>>;
    };

/** What actually happened to a planned operation. */
export interface OperationOutcome {
  /** `ok`: billed and used; `failed`: the attempt failed (not billed by the gateway). */
  readonly status: "ok" | "failed";
  /** The model that served (the dated version from the response), for chat. */
  readonly servedModel?: string;
  /** Token usage as the gateway reported it (from the final usage chunk when streaming). */
  readonly usage?: Usage;
  /** Images returned by an image model. */
  readonly images?: number;
  /** Why it failed, as an error code, when `status` is `failed`. */
  readonly errorCode?: string;
  /** The gateway's request id, for matching entries to the gateway's logs. A replay carries the id
   * of the request that was billed. */
  readonly requestId?: string;
  /** True when the gateway replayed the stored answer of an earlier request with the same
   * idempotency key: billed once, by that request (see CostLedger for how it is counted). */
  readonly replayed?: boolean;
}

/** A hold on budget for one operation; exactly one of settle or release is called. */
export interface UsageReservation {
  /** Set when the budget is shared beyond this process: resolves once the shared budget holds the
   * bound, rejects (BudgetExceededError) when it refuses. Send nothing before it resolves. */
  readonly ready?: Promise<void>;
  /** Records the outcome and replaces the hold with the actual cost. */
  settle(outcome: OperationOutcome): void;
  /** Drops the hold without recording anything (the request was never sent). */
  release(): void;
}

/** Receives every billable operation; throws BudgetExceededError from reserve to refuse one. */
export interface UsageRecorder {
  reserve(operation: PlannedOperation): UsageReservation;
}
