import { MUSIC_OPERATIONS, roundYuan, type MusicOperation } from "../../catalog/prices.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import type { CostLedger } from "../../cost/cost-ledger.js";
import { MUSIC_PATHS, type ChatRequest } from "../../gateway/wire.js";
import type { RecordOf } from "./journal-records.js";
import type { JournalSink } from "./run-journal.js";

/** A call that may have been paid twice: sent again after an earlier send of its key was lost, and billed afresh. */
export interface PossibleDoubleBill {
  /** The step instance, e.g. `lines[3].line`. */
  readonly step: string;
  readonly model?: string;
  readonly musicOperation?: string;
  readonly idempotencyKey: string;
  /** The request id of the bill that was counted. */
  readonly requestId?: string;
  /** What the counted bill cost: what the lost send cost too, if it was billed. Undefined when unpriced. */
  readonly yuan?: number;
}

/** cost.json's `possibleDoubleBills`: the calls and their priced total. */
export interface PossibleDoubleBills {
  readonly totalYuan: number;
  readonly calls: readonly PossibleDoubleBill[];
}

/** What a call is, as its intent record names it. */
type CallFacts = Pick<RecordOf<"call-intent">, "model" | "musicOperation" | "holdYuan">;

interface Send {
  readonly idempotencyKey: string;
  readonly resent: boolean;
}

/**
 * The intent/bill rule of a run's calls: every billable call is journaled as an intent (its
 * Idempotency-Key, step, model and hold) before it is sent, and its bill's cost record names the
 * same key once an answer came. A key whose last intent has no answered bill was lost in flight
 * (a kill, a dropped connection): it may have been billed. When it is sent again and billed afresh
 * (not replayed) by a gateway that did not say it honours the key (`idempotent-replayed`), the run
 * may have paid it twice: that bill is marked, and cost.json lists it.
 */
export class CallIntents {
  readonly #journal: JournalSink;
  readonly #describe: (path: string, body: string) => CallFacts;
  /** Keys sent whose bill has not come back, with the step that sent them. */
  readonly #open: Map<string, string>;
  readonly #doubles: PossibleDoubleBill[];
  /** Sends answered, by the x-request-id of the answer, until their cost entry names them. */
  readonly #answered = new Map<string, Send & { readonly honoured: boolean }>();

  constructor(
    journal: JournalSink,
    describe: (path: string, body: string) => CallFacts,
    earlier: { open: ReadonlyMap<string, string>; doubles: readonly PossibleDoubleBill[] },
  ) {
    this.#journal = journal;
    this.#describe = describe;
    this.#open = new Map(earlier.open);
    this.#doubles = [...earlier.doubles];
  }

  /**
   * Journals the intent of a call `step` is about to send; resolves with the send once the line is
   * in the journal, where a kill of the process cannot lose it (its fsync follows with the step's
   * other lines, so the send does not wait for the disk).
   */
  async sending(step: string, idempotencyKey: string, path: string, body: string): Promise<Send> {
    const resent = this.#open.has(idempotencyKey);
    this.#open.set(idempotencyKey, step);
    const record = {
      type: "call-intent" as const,
      key: step,
      idempotencyKey,
      ...this.#describe(path, body),
      at: new Date().toISOString(),
    };
    await (this.#journal.written?.(record) ?? this.#journal.append(record));
    return { idempotencyKey, resent };
  }

  /** Notes the answer a send got: its request id, and whether the gateway said it honours the key. */
  answered(send: Send, requestId: string | undefined, honoured: boolean): void {
    if (requestId !== undefined) this.#answered.set(requestId, { ...send, honoured });
  }

  /** The call fields of an entry's cost record (the ledger's onEntry): an answered send's key, and whether it may be a double bill. */
  billOf(entry: CostEntry): { idempotencyKey?: string; possibleDoubleBill?: true } {
    const send = entry.requestId === undefined ? undefined : this.#answered.get(entry.requestId);
    if (send === undefined || entry.status === "refunded") return {};
    this.#answered.delete(entry.requestId!);
    this.#open.delete(send.idempotencyKey);
    const double = entry.status === "ok" && entry.replayed !== true && send.resent && !send.honoured;
    if (!double) return { idempotencyKey: send.idempotencyKey };
    this.#doubles.push(doubleBillOf(entry, send.idempotencyKey));
    return { idempotencyKey: send.idempotencyKey, possibleDoubleBill: true };
  }

  /** The calls that may have been billed twice so far, with their total. */
  summary(): PossibleDoubleBills {
    return summarizeDoubleBills(this.#doubles);
  }
}

/** The possible double bill a marked cost record stands for. */
export function doubleBillOf(entry: CostEntry, idempotencyKey: string): PossibleDoubleBill {
  return {
    step: entry.tags.step ?? "",
    ...(entry.modelRequested === undefined ? {} : { model: entry.modelRequested }),
    ...(entry.musicOperation === undefined ? {} : { musicOperation: entry.musicOperation }),
    idempotencyKey,
    ...(entry.requestId === undefined ? {} : { requestId: entry.requestId }),
    ...(entry.yuan === undefined ? {} : { yuan: entry.yuan }),
  };
}

/** The calls with their priced total. */
export function summarizeDoubleBills(calls: readonly PossibleDoubleBill[]): PossibleDoubleBills {
  return { totalYuan: calls.reduce((sum, call) => roundYuan(sum + (call.yuan ?? 0)), 0), calls };
}

/** A call's model (or music operation) and its budget hold, read from what is sent; the hold is the ledger's bound. */
export function callFacts(ledger: CostLedger, path: string, body: string): CallFacts {
  if (path.endsWith("/chat/completions")) {
    try {
      const request = JSON.parse(body) as ChatRequest;
      const hold = ledger.estimate({ kind: "chat", request }).yuan;
      return { model: request.model, ...(hold === undefined ? {} : { holdYuan: hold }) };
    } catch {
      // What the client sends is its own JSON; an estimate that cannot read it still leaves the intent its key.
      return {};
    }
  }
  const name = path.slice(path.lastIndexOf("/") + 1).split("?")[0];
  const operation = Object.entries(MUSIC_PATHS).find(([, segment]) => segment === name)?.[0];
  if (!isMusicOperation(operation)) return {};
  const hold = ledger.estimate({ kind: "music", operation }).yuan;
  return { musicOperation: operation, ...(hold === undefined ? {} : { holdYuan: hold }) };
}

function isMusicOperation(name: string | undefined): name is MusicOperation {
  return (MUSIC_OPERATIONS as readonly (string | undefined)[]).includes(name);
}
