import type { ON_ITEM_ERROR } from "../schema/step-schemas.js";

/** Options of a batch body. */
export interface BatchBodyOptions {
  /** Default `collect`: a failed item is recorded and the batch goes on. */
  readonly onItemError?: (typeof ON_ITEM_ERROR)[number];
  /** Items in flight at once. Default: the run's concurrency. */
  readonly concurrency?: number;
}

/** Options a run takes for a batch: what `svc-flow run --items FILE` passes. */
export interface BatchRunOptions extends BatchBodyOptions {
  /** A .jsonl or .csv file: run the steps once per row. Default: the workflow's `type: items` input, if any. */
  readonly items?: string;
}
