import path from "node:path";
import { mergeTotals, type CostTotals } from "../../cost/summarize-entries.js";
import { parseStepKey } from "../report/step-order.js";
import { BlockFile } from "./block-file.js";

/** The run-directory file that holds the totals of the steps a run let go of until cost.json is written from it. */
export const STEP_TOTALS_FILE = ".cost-steps.jsonl";

/**
 * The totals of the step instances a run's ledger let go of as they ended (a batch's rows past the
 * report's first page): on disk until cost.json's `byTag.step` is written from them, so a
 * 100,000-row batch holds no totals per row. What the report shows of them, each row's yuan, is kept
 * in eight bytes a row.
 */
export class ReleasedSteps {
  readonly #file: BlockFile;
  readonly #rowPrefix: string | undefined;
  /** Yuan by row index; NaN where no priced call of the row was let go. */
  #rowYuan = new Float64Array(0);

  /** With `batchKey`, the yuan of its rows (`items[N].…`) are kept for the report. */
  constructor(runDir: string, batchKey?: string) {
    this.#file = new BlockFile(path.join(runDir, STEP_TOTALS_FILE));
    this.#rowPrefix = batchKey === undefined ? undefined : `${batchKey}[`;
  }

  /** Takes an ended step's totals. Each step instance is released at most once in an attempt. */
  add(key: string, totals: CostTotals): void {
    this.#file.write(`${JSON.stringify([key, totals])}\n`);
    const index =
      this.#rowPrefix !== undefined && key.startsWith(this.#rowPrefix) ? parseStepKey(key)[0]?.index : undefined;
    if (index === undefined || totals.yuan === null) return;
    if (index >= this.#rowYuan.length) {
      const grown = new Float64Array(Math.max(index + 1, this.#rowYuan.length * 2, 1024)).fill(Number.NaN);
      grown.set(this.#rowYuan);
      this.#rowYuan = grown;
    }
    const before = this.#rowYuan[index]!;
    this.#rowYuan[index] = Number.isNaN(before) ? totals.yuan : before + totals.yuan;
  }

  /** Resolves once the file's writes have caught up (BlockFile.drained). */
  drained(): Promise<void> {
    return this.#file.drained();
  }

  /** The priced yuan of batch row `index`'s released steps; undefined when none was priced. */
  rowYuan(index: number): number | undefined {
    const yuan = this.#rowYuan[index];
    return yuan === undefined || Number.isNaN(yuan) ? undefined : yuan;
  }

  /**
   * Every step's totals for cost.json: those still in the ledger (`kept`, in its order), then the
   * released ones in the order they ended. With `lateEntries` (an entry came for a step after it
   * ended), a released step the ledger counted again is given once, its two totals merged.
   */
  async *byStep(
    kept: Readonly<Record<string, CostTotals>>,
    lateEntries: boolean,
  ): AsyncGenerator<[string, CostTotals]> {
    const released = new Map<string, CostTotals>();
    if (lateEntries) {
      for await (const [key, totals] of this.#released()) if (Object.hasOwn(kept, key)) released.set(key, totals);
    }
    for (const [key, totals] of Object.entries(kept)) {
      const earlier = released.get(key);
      yield [key, earlier === undefined ? totals : mergeTotals(earlier, totals)];
    }
    for await (const [key, totals] of this.#released()) if (!released.has(key)) yield [key, totals];
  }

  async *#released(): AsyncGenerator<[string, CostTotals]> {
    for await (const line of this.#file.lines()) if (line !== "") yield JSON.parse(line) as [string, CostTotals];
  }

  /** Closes and deletes the file. */
  remove(): Promise<void> {
    return this.#file.remove();
  }
}
