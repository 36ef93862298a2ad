import { overBudgetError, stoppedByBudgetError, type BudgetState } from "./budget-errors.js";
import type { OperationEstimate } from "./estimate-operation.js";

/** A hold on a shared budget for one operation; exactly one of settle or release is called. */
export interface BudgetHold {
  /** Replaces the hold with what the operation cost (0 when it failed or its bill was already counted).
   * `refundId`, the bill's request id, is given when the gateway may refund it later (a music call). */
  settle(yuan: number, refundId?: string): void;
  /** Drops the hold: nothing was sent. */
  release(): void;
}

/** Why an account refused a hold: the budget as it was, and whether the run had already been stopped by it. */
export interface BudgetRefusal extends BudgetState {
  /** True when another process was refused first and the run stopped: no new call starts anywhere. */
  readonly stopped: boolean;
}

/** What an account answers to a hold. */
export type HoldAnswer = { readonly hold: BudgetHold } | { readonly refused: BudgetRefusal };

/**
 * A budget kept outside the ledger and shared with other processes (the workers of a distributed
 * run). A ledger with an account holds each priced operation's upper bound there before it is
 * sent, and the account decides against everything spent and held everywhere, atomically.
 */
export interface BudgetAccount {
  /** Holds `yuan` for one operation, or refuses. */
  hold(yuan: number): Promise<HoldAnswer>;
  /** Takes the bill settled with `refundId` back off what is spent, once: the gateway refunded it (a
   * failed music job). A bill the account never settled (or already refunded) changes nothing. */
  refund(refundId: string): void;
}

/** One operation's hold on an account, as a ledger reservation uses it. */
export interface SharedHold {
  /** Settles once the account holds the bound; rejects with BudgetExceededError when it refuses. */
  readonly ready: Promise<void>;
  settle(yuan: number, refundId?: string): void;
  release(): void;
}

/** Asks `account` to hold `yuan`, `estimate`'s bound; settle and release may come before its answer, and wait for it. */
export function holdOnAccount(account: BudgetAccount, estimate: OperationEstimate, yuan: number): SharedHold {
  const answer = account.hold(yuan);
  // Known before `ready` resolves, so a settle after `await ready` reaches the account at once, in call order.
  let known: HoldAnswer | undefined;
  void answer.then(
    (result) => (known = result),
    () => undefined,
  );
  const ready = answer.then((result) => {
    if ("refused" in result)
      throw (result.refused.stopped ? stoppedByBudgetError : overBudgetError)(estimate, result.refused);
  });
  // A caller that releases without awaiting `ready` must not leave an unhandled rejection behind.
  ready.catch(() => undefined);
  const granted = (use: (hold: BudgetHold) => void) => {
    if (known !== undefined) return void ("hold" in known ? use(known.hold) : undefined);
    void answer.then(
      (result) => ("hold" in result ? use(result.hold) : undefined),
      () => undefined,
    );
  };
  return {
    ready,
    settle: (yuan, refundId) => granted((hold) => hold.settle(yuan, refundId)),
    release: () => granted((hold) => hold.release()),
  };
}
