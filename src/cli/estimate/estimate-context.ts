import type { CostLedger } from "../../cost/cost-ledger.js";
import type { Workflow } from "../../workflow/load/load-workflow.js";
import type { Step } from "../../workflow/schema/step-schemas.js";

/** What is known about a map variable before the run: its items, or a bound on each item's size. */
export interface VariableBound {
  /** The items, when the map's list is known at load time. */
  readonly items?: readonly unknown[];
  /** Most tokens one item can take as text, when only that is known. */
  readonly tokens?: number;
}

/** What an estimate of one workflow reads while it walks the steps. */
export interface EstimateContext {
  readonly workflow: Workflow;
  /** Prices (published plus overrides) and the estimates the run itself would reserve. */
  readonly ledger: CostLedger;
  /** Input values known before the run: given with --input, or declared defaults. */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Required inputs that were not given: values of unknown size. */
  readonly missingInputs: ReadonlySet<string>;
  /** Every step of the file by id (ids are unique in a file). */
  readonly steps: ReadonlyMap<string, Step>;
  /** Map variables in scope where a step sits, by name. */
  readonly variables: ReadonlyMap<string, VariableBound>;
}
