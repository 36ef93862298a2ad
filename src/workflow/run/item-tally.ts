/** How many items of one map (or of a batch) succeeded; `key` is the map's step key, `items` for a batch. */
export interface ItemTally {
  readonly key: string;
  readonly succeeded: number;
  readonly failed: number;
  readonly total: number;
}
