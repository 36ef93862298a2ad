import { BudgetExceededError } from "../errors.js";
import type { OperationEstimate } from "./estimate-operation.js";
import { formatYuan } from "./format-summary-table.js";

/** What a budget looked like when a call was refused. */
export interface BudgetState {
  readonly maxYuan: number;
  readonly spentYuan: number;
  readonly heldYuan: number;
}

/** The fix an over-budget refusal names; a run that says how to resume with a raised cap leaves it out. */
export const RAISE_BUDGET_HINT = " Raise --budget or budget.maxYuan and resume.";

function subject(estimate: OperationEstimate): string {
  return estimate.model ?? `music ${estimate.musicOperation}`;
}

/** The refusal of a call whose upper bound does not fit what is left of the cap. */
export function overBudgetError(estimate: OperationEstimate, budget: BudgetState): BudgetExceededError {
  const smaller = estimate.assumptions.some((line) => line.includes("set maxTokens"))
    ? " Setting maxTokens also makes the reservation smaller."
    : "";
  return new BudgetExceededError(
    `Budget exceeded: this ${subject(estimate)} call needs up to ${formatYuan(estimate.yuan ?? 0)}, ` +
      `${formatYuan(budget.spentYuan)} is spent and ${formatYuan(budget.heldYuan)} is held by calls in flight, ` +
      `of a ${formatYuan(budget.maxYuan)} cap. Nothing was sent.${RAISE_BUDGET_HINT}${smaller}`,
  );
}

/** The refusal of a call after the run was stopped by its budget elsewhere (another worker of a distributed run). */
export function stoppedByBudgetError(estimate: OperationEstimate, budget: BudgetState): BudgetExceededError {
  return new BudgetExceededError(
    `Budget exceeded: the run was stopped by its ${formatYuan(budget.maxYuan)} cap (${formatYuan(budget.spentYuan)} spent) ` +
      `before this ${subject(estimate)} call; nothing was sent.${RAISE_BUDGET_HINT}`,
  );
}

const NO_PRICE = " has no price, so ";

/** Whether a budget refusal's message (it may have crossed processes as text) is an unpriced call's:
 * the fix for that is a price or allowUnpriced, not a higher cap. */
export function isUnpricedRefusal(message: string): boolean {
  return message.includes(NO_PRICE);
}

/** The refusal of an unpriced call under a cap, which the cap cannot bound; `maxYuan` when the cap is known here. */
export function unpricedUnderBudgetError(estimate: OperationEstimate, maxYuan?: number): BudgetExceededError {
  const what = subject(estimate);
  const where = estimate.kind === "image" ? `image: { ${what}: YUAN }` : `chat: { ${what}: { input, output } }`;
  const budget = maxYuan === undefined ? "the budget" : `the ${formatYuan(maxYuan)} budget`;
  return new BudgetExceededError(
    `${what}${NO_PRICE}${budget} cannot bound this call; nothing was sent. ` +
      `Add its price to a price file (${where}) or set allowUnpriced to run unpriced calls uncounted.`,
  );
}
