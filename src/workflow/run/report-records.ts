import { findMedia } from "../report/media-index.js";
import { ITEMS_PAGE_SIZE } from "../report/render-batch-items.js";
import { parseStepKey } from "../report/step-order.js";
import type { JournalRecord } from "./journal-records.js";
import type { JournalSink } from "./run-journal.js";

/**
 * The journal records a run keeps for its report, so the end of a run never reads journal.jsonl
 * back: every record it appends (and, resumed, the ones it was resumed from) as it appends them,
 * less what the report does not show. Costs (the ledger keeps those `showsCostsOf`
 * names) and call intents are left out, and a batch row past the report's first page keeps only a step record that names media
 * (its tile on a later page). A kept record shares its output with the run's scope, so keeping it copies no output.
 */
export class ReportRecords implements JournalSink {
  readonly #journal: JournalSink;
  readonly #records: JournalRecord[] = [];
  readonly #reads: (record: JournalRecord) => boolean;
  readonly #showsCostsOf: (key: string | undefined) => boolean;

  constructor(journal: JournalSink, earlier: readonly JournalRecord[], options: { batchKey?: string } = {}) {
    this.#journal = journal;
    this.#reads = reportReads(options.batchKey);
    this.#showsCostsOf = reportShowsCostsOf(options.batchKey);
    for (const record of earlier) this.#keep(record);
  }

  /** Appends to the journal, keeping the record when the report reads it. */
  append(record: JournalRecord): Promise<void> {
    this.#keep(record);
    return this.#journal.append(record);
  }

  /** What the report reads, in journal order. */
  get records(): readonly JournalRecord[] {
    return this.#records;
  }

  /** Whether the report reads the cost entries of step instance `key`: all but a batch row's past the first page. */
  showsCostsOf(key: string | undefined): boolean {
    return this.#showsCostsOf(key);
  }

  #keep(record: JournalRecord): void {
    if (this.#reads(record)) this.#records.push(record);
  }
}

/**
 * Which records the report of a run reads (of a batch run, with `batchKey`): not costs (they are in
 * the ledger) nor call intents (they matter only to resume), and of a batch row past the report's
 * first page only a step record that names media (its tile on a later page).
 */
export function reportReads(batchKey?: string): (record: JournalRecord) => boolean {
  const rowPrefix = batchKey === undefined ? undefined : `${batchKey}[`;
  return (record) => {
    if (record.type === "cost" || record.type === "call-intent") return false;
    const row = rowPrefix !== undefined && "key" in record && record.key.startsWith(rowPrefix);
    if (!row || onFirstPage(record.key)) return true;
    return record.type === "step-finished" && findMedia(record.output).length > 0;
  };
}

/** Whether the report of a run (of a batch run, with `batchKey`) reads the cost entries of step instance `key`. */
export function reportShowsCostsOf(batchKey?: string): (key: string | undefined) => boolean {
  const rowPrefix = batchKey === undefined ? undefined : `${batchKey}[`;
  return (key) => key === undefined || rowPrefix === undefined || !key.startsWith(rowPrefix) || onFirstPage(key);
}

function onFirstPage(key: string): boolean {
  return (parseStepKey(key)[0]?.index ?? 0) < ITEMS_PAGE_SIZE;
}
