import type { CostEntry } from "../../cost/cost-entry.js";
import type { CallIntents } from "./call-intents.js";
import type { MusicJob } from "./journal-records.js";
import type { JournalSink } from "./run-journal.js";

/**
 * Journals a run's (or an item's) cost entries as the ledger makes them, one `cost` record each.
 * The bill of a music call goes in one record with the job it started (its clip ids): were they two
 * lines, a kill between them would keep the bill and lose the job, and a resume could then neither
 * poll the job nor, when it failed upstream, take its refunded bill back off.
 */
export class CostJournal {
  readonly #journal: JournalSink;
  readonly #calls: CallIntents | undefined;
  #attaching: { readonly job: MusicJob; written?: Promise<void> } | undefined;

  /** With `calls`, a bill's record names the idempotency key of the call it settles (the intent/bill rule). */
  constructor(journal: JournalSink, calls?: CallIntents) {
    this.#journal = journal;
    this.#calls = calls;
  }

  /** Journals a new entry (the ledger's onEntry); resolves once it is durable. */
  append(entry: CostEntry): Promise<void> {
    const attaching = this.#attaching;
    this.#attaching = undefined;
    const written = this.#journal.append({
      type: "cost",
      entry,
      ...(attaching === undefined ? {} : { musicJob: attaching.job }),
      ...this.#calls?.billOf(entry),
    });
    if (attaching !== undefined) attaching.written = written;
    return written;
  }

  /**
   * Runs `settle`, which settles the bill of the call that started `job` on the ledger, so that the
   * bill's record names the job; resolves once that record is durable. The ledger makes the entry
   * and calls append synchronously inside settle, so no other entry can take the job.
   */
  journalWithBill(job: MusicJob, settle: () => void): Promise<void> {
    const attaching: { readonly job: MusicJob; written?: Promise<void> } = { job };
    this.#attaching = attaching;
    try {
      settle();
    } finally {
      this.#attaching = undefined;
    }
    // No entry came of it (a ledger without onEntry): the job still needs its line.
    return attaching.written ?? this.#journal.append({ type: "music-submitted", ...job, at: new Date().toISOString() });
  }
}
