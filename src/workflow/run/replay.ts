import { ConfigError } from "../../errors.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import { doubleBillOf, type PossibleDoubleBill } from "./call-intents.js";
import type {
  ApprovalDecision,
  ApprovalRequest,
  JournaledMusicJob,
  JournalRecord,
  RecordOf,
  RunStarted,
} from "./journal-records.js";
import { forEachJournalRecord } from "./run-journal.js";

/** What a journal says is already done, indexed for the engine. */
export class Replay {
  readonly start: RunStarted;
  readonly steps = new Map<string, RecordOf<"step-finished">>();
  readonly skipped = new Set<string>();
  readonly items = new Map<string, Map<number, RecordOf<"item-finished">>>();
  /** The last music job each step instance submitted, by step key. */
  readonly music = new Map<string, JournaledMusicJob>();
  /** The last music job each tool call of a step instance started, by step key and call (see `toolMusicKey`). */
  readonly toolMusic = new Map<string, JournaledMusicJob>();
  /** The bills earlier attempts journaled, less those of forgotten step instances. */
  readonly costs: CostEntry[] = [];
  /** Idempotency keys whose last intent has no answered bill (lost in flight), with the step that sent them. */
  readonly openCalls = new Map<string, string>();
  /** Bills marked as possibly paid twice (see CallIntents). */
  readonly doubleBills: PossibleDoubleBill[] = [];
  /** Agent steps' journaled model turns, by step key, then turn. */
  readonly agentTurns = new Map<string, Map<number, RecordOf<"agent-turn">>>();
  /** Agent steps' journaled tool results, by step key, then `agentCallKey(turn, callId)`. */
  readonly agentToolResults = new Map<string, Map<string, RecordOf<"agent-tool-result">>>();
  /** Approval questions asked, by step key. */
  readonly approvalRequests = new Map<string, ApprovalRequest>();
  /** Approval answers, by step key: the first answer counts. */
  readonly approvalDecisions = new Map<string, ApprovalDecision>();
  #budgetYuan: number | undefined;
  #finished: RecordOf<"run-finished"> | undefined;
  #last: JournalRecord;
  #costsByStep: Map<string, CostEntry[]> | undefined;
  readonly #forget: ((key: string) => boolean) | undefined;
  /** The forgotten step instances that billed something, in the order of their first bills. */
  readonly #forgottenBilled = new Set<string>();

  /**
   * `forget` names step instances that will never run again (a resumed batch's finished rows): none of their
   * records is kept, not even their bills (a caller that needs those takes them in as they are read: `read`'s `each`).
   */
  constructor(records: readonly JournalRecord[], forget?: (key: string) => boolean) {
    this.#forget = forget;
    const [first] = records;
    if (first?.type !== "run-started") {
      throw new ConfigError("The journal does not start with a run-started record; it is not a run journal.", {
        code: "invalid_journal",
      });
    }
    this.start = first;
    this.#budgetYuan = first.budgetYuan;
    this.#last = first;
    for (const record of records) this.add(record);
  }

  /**
   * Reads a run's journal record by record into a Replay (see `forEachJournalRecord`: the text is
   * never held whole); `each` sees every record too, for what a caller keeps besides.
   */
  static async read(
    journalPath: string,
    options: { repair?: boolean; each?: (record: JournalRecord) => void; forget?: (key: string) => boolean } = {},
  ): Promise<Replay> {
    let replay: Replay | undefined;
    await forEachJournalRecord(
      journalPath,
      (record) => {
        if (replay === undefined) replay = new Replay([record], options.forget);
        else replay.add(record);
        options.each?.(record);
      },
      options,
    );
    return replay ?? new Replay([]);
  }

  /** The budget in force last (the start's, or a resume's raised one). */
  get budgetYuan(): number | undefined {
    return this.#budgetYuan;
  }

  /** How the last attempt ended, when it got that far. */
  get finished(): RecordOf<"run-finished"> | undefined {
    return this.#finished;
  }

  /** The journal's last record. */
  get last(): JournalRecord {
    return this.#last;
  }

  /** Takes in the journal's next record. */
  add(record: JournalRecord): void {
    this.#last = record;
    if (this.#forget !== undefined && "key" in record && FORGETTABLE.has(record.type) && this.#forget(record.key))
      return;
    switch (record.type) {
      case "step-finished":
        this.steps.set(record.key, record);
        break;
      case "step-skipped":
        this.skipped.add(record.key);
        break;
      case "item-finished": {
        const items = this.items.get(record.key) ?? new Map<number, RecordOf<"item-finished">>();
        items.set(record.index, record);
        this.items.set(record.key, items);
        break;
      }
      case "music-submitted":
        this.music.set(record.key, {
          key: record.key,
          operation: record.operation,
          clipIds: record.clipIds,
          ...(record.requestId === undefined ? {} : { requestId: record.requestId }),
        });
        break;
      case "cost": {
        const step = record.entry.tags.step;
        if (step !== undefined && this.#forget?.(step) === true) this.#forgottenBilled.add(step);
        else {
          this.costs.push(record.entry);
          this.#costsByStep = undefined;
        }
        // A forgotten step's job is never looked up again.
        if (record.musicJob !== undefined && this.#forget?.(record.musicJob.key) !== true) {
          const { requestId } = record.entry;
          const job = { ...record.musicJob, ...(requestId === undefined ? {} : { requestId }) };
          if (job.call === undefined) this.music.set(job.key, job);
          else this.toolMusic.set(toolMusicKey(job.key, job.call), job);
        }
        if (record.idempotencyKey !== undefined) {
          this.openCalls.delete(record.idempotencyKey);
          if (record.possibleDoubleBill === true)
            this.doubleBills.push(doubleBillOf(record.entry, record.idempotencyKey));
        }
        break;
      }
      case "call-intent":
        this.openCalls.set(record.idempotencyKey, record.key);
        break;
      case "agent-turn":
        inner(this.agentTurns, record.key).set(record.turn, record);
        break;
      case "agent-tool-result":
        inner(this.agentToolResults, record.key).set(agentCallKey(record.turn, record.callId), record);
        break;
      case "approval-requested":
        if (!this.approvalRequests.has(record.key)) this.approvalRequests.set(record.key, record);
        break;
      case "approval-decided":
        if (!this.approvalDecisions.has(record.key)) this.approvalDecisions.set(record.key, record);
        break;
      case "run-resumed":
        if (record.budgetYuan !== undefined) this.#budgetYuan = record.budgetYuan;
        break;
      case "run-finished":
        this.#finished = record;
        break;
      default:
        break;
    }
  }

  /**
   * The step instances earlier attempts finished: those with a record, and the forgotten ones that billed something.
   * The forgotten ones are named once: the run ends each as it is named, and a batch has one a row, so the replay
   * lets go of them once they have all been named.
   */
  *finishedSteps(): Generator<string> {
    yield* this.steps.keys();
    yield* this.#forgottenBilled;
    this.#forgottenBilled.clear();
  }

  /** The cost entries earlier attempts journaled for step instance `key` (a step cut short by a kill or a wait). */
  costsOf(key: string): readonly CostEntry[] {
    // Indexed on first use: most runs resume no unfinished step, and a batch's journal holds many entries.
    if (this.#costsByStep === undefined) {
      this.#costsByStep = new Map();
      for (const entry of this.costs) {
        const step = entry.tags.step;
        if (step === undefined) continue;
        const entries = this.#costsByStep.get(step);
        if (entries === undefined) this.#costsByStep.set(step, [entry]);
        else entries.push(entry);
      }
    }
    return this.#costsByStep.get(key) ?? [];
  }

  /** Approval questions asked and not answered yet, in the order they were asked. */
  waitingApprovals(): ApprovalRequest[] {
    return [...this.approvalRequests.values()].filter((request) => !this.approvalDecisions.has(request.key));
  }

  /** An empty replay for a new run. */
  static fresh(start: RunStarted): Replay {
    return new Replay([start]);
  }
}

// Records about one step instance, which a forgotten instance does not need (approvals are kept: `runs` and the
// end of the run ask which questions are open).
const FORGETTABLE = new Set<JournalRecord["type"]>([
  "step-finished",
  "step-skipped",
  "item-finished",
  "music-submitted",
  "agent-turn",
  "agent-tool-result",
  "call-intent",
]);

/** The key of an agent's tool call among its step's: model turn and call id (ids may repeat across turns). */
export function agentCallKey(turn: number, callId: string): string {
  return `${turn}/${callId}`;
}

function inner<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let found = outer.get(key);
  if (found === undefined) {
    found = new Map<K, V>();
    outer.set(key, found);
  }
  return found;
}

/** The key of a tool call's music job in `Replay.toolMusic`. */
export function toolMusicKey(stepKey: string, call: string): string {
  return `${stepKey}\n${call}`;
}
