import { ConfigError } from "../../errors.js";
import { decideApproval, type ApprovalAnswer, type RecordedApproval } from "../approval/record-approval.js";
import { journalRecordSchema, type ApprovalRequest } from "../run/journal-records.js";
import { Replay } from "../run/replay.js";
import type { RunStore } from "./run-store.js";

/** The run-key part of the hash of items waiting for a decision (index -> the questions they wait on). */
export const WAITING_PART = "waiting";

// One script, so an answer lands only on an item that waits, and the item stops waiting as it lands:
// a worker re-running the item then replays the answer, and the run is not ended waiting on it.
const ANSWER = `
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call("RPUSH", KEYS[2], ARGV[2])
redis.call("HDEL", KEYS[1], ARGV[1])
return 1`;

/** An answer journaled for an item of a distributed run. */
export type RecordedItemApproval = RecordedApproval & { readonly index: number };

/**
 * The items of a distributed run that wait for a person (`uses: approval`, an agent's tool call), in
 * Redis where every worker and `svc-flow approve` see them. An item that waits has no result: its
 * steps so far are in its journal, and the question with them. `approve` journals the answer in the
 * item's journal and takes the item off the waiting list; a worker then runs it again, replaying
 * its finished (paid) steps and the answer.
 */
export class ItemApprovals {
  readonly #store: RunStore;

  constructor(store: RunStore) {
    this.#store = store;
  }

  /** Marks item `index` as waiting on `requests` (the questions it asked and has no answer to). */
  async wait(runId: string, index: number, requests: readonly ApprovalRequest[]): Promise<void> {
    await this.#store.redis.hset(this.#key(runId), String(index), JSON.stringify(requests));
  }

  /** The items waiting and their questions, in item order. */
  async waiting(runId: string): Promise<Map<number, ApprovalRequest[]>> {
    const all = await this.#store.redis.hgetall(this.#key(runId));
    const entries = Object.entries(all).map(([index, text]): [number, ApprovalRequest[]] => [
      Number(index),
      (JSON.parse(text) as unknown[]).map((record) => journalRecordSchema.parse(record) as ApprovalRequest),
    ]);
    return new Map(entries.sort(([left], [right]) => left - right));
  }

  /**
   * Takes off the waiting list the items with a question whose `timeout` has passed, so `resume`
   * runs them again and their `onTimeout` decides it; returns their indexes.
   */
  async releaseTimedOut(runId: string, now = new Date()): Promise<number[]> {
    const due = [...(await this.waiting(runId))]
      .filter(([, requests]) =>
        requests.some((request) => request.timeoutAt !== undefined && Date.parse(request.timeoutAt) <= now.getTime()),
      )
      .map(([index]) => index);
    if (due.length > 0) await this.#store.redis.hdel(this.#key(runId), ...due.map(String));
    return due;
  }

  /** How many items wait. */
  async count(runId: string): Promise<number> {
    return this.#store.redis.hlen(this.#key(runId));
  }

  /**
   * Journals `answer` in the journal of the item it is for (`answer.item`, or the only waiting item
   * that asks `answer.step`) and takes that item off the waiting list. Refuses what recordApproval
   * refuses, and an answer to an item that does not wait (any more).
   */
  async answer(runId: string, answer: ApprovalAnswer): Promise<RecordedItemApproval> {
    const index = await this.#itemOf(runId, answer);
    const replay = new Replay([
      (await this.#store.spec(runId)).start,
      ...(await this.#store.itemRecords(runId, index)),
    ]);
    // A step instance's key (`items[3].check`) names its item already; a step id is scoped to the item.
    const scoped = answer.step.includes("[") ? answer : { ...answer, item: index };
    const { request, ...decision } = decideApproval(replay, `Run ${runId} item ${index}`, scoped);
    const journal = this.#store.keyOf(runId, `journal:${index}`);
    const landed = await this.#store.redis.eval(
      ANSWER,
      2,
      this.#key(runId),
      journal,
      String(index),
      JSON.stringify(decision),
    );
    if (landed !== 1)
      throw new ConfigError(
        `Item ${index} of run ${runId} stopped waiting while it was answered; nothing was recorded.`,
        {
          code: "not_waiting",
        },
      );
    return { ...decision, request, index };
  }

  async #itemOf(runId: string, answer: ApprovalAnswer): Promise<number> {
    const waiting = await this.waiting(runId);
    const items = [...waiting.keys()];
    const list = items.length === 0 ? "" : ` Items waiting: ${items.join(", ")}.`;
    if (answer.item !== undefined) {
      if (waiting.has(answer.item)) return answer.item;
      throw new ConfigError(`Item ${answer.item} of run ${runId} is not waiting for a decision.${list}`, {
        code: "not_waiting",
      });
    }
    const asking = items.filter((index) =>
      waiting.get(index)!.some((request) => request.id === answer.step || request.key === answer.step),
    );
    if (asking.length === 1) return asking[0]!;
    if (asking.length === 0)
      throw new ConfigError(`No item of run ${runId} waits on "${answer.step}".${list}`, { code: "unknown_step" });
    throw new ConfigError(
      `"${answer.step}" waits once per item (${asking.join(", ")}); answer one at a time with --item N.`,
      { code: "invalid_parameter" },
    );
  }

  #key(runId: string): string {
    return this.#store.keyOf(runId, WAITING_PART);
  }
}
