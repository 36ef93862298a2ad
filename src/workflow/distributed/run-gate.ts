import { z } from "zod";
import type { RunStore } from "./run-store.js";

/** Why a distributed run stopped starting items: its budget refused a call, or an item failed under `onItemError: fail`. */
export const runHaltSchema = z.object({
  reason: z.enum(["budget", "failed"]),
  /** The item that was refused or failed. */
  index: z.int().nonnegative(),
  error: z.object({ code: z.string(), message: z.string() }),
  at: z.string(),
});
/** A distributed run's halt, as stored. */
export type RunHalt = z.infer<typeof runHaltSchema>;

/** The run-key part of the halt hash (`reason`, `record`); RunBudget's scripts read its reason. */
export const HALT_PART = "halt";

// The first halt wins: a budget stop after a failure (or the reverse) does not rewrite why the run ended.
const HALT = `
if redis.call("HSETNX", KEYS[1], "reason", ARGV[1]) == 0 then return 0 end
redis.call("HSET", KEYS[1], "record", ARGV[2])
return 1`;

// One script, so an item either starts before the halt (and is in `running` until it ends) or not at all.
const ENTER = `
if redis.call("EXISTS", KEYS[1]) == 1 then
  -- The item is being taken up again: its earlier execution died or lost its job's lock.
  redis.call("HDEL", KEYS[2], ARGV[1])
  return 0
end
redis.call("HSET", KEYS[2], ARGV[1], ARGV[2])
return 1`;

// Only the execution that entered leaves: a late, lock-lost one does not unregister its successor.
const LEAVE = `
if redis.call("HGET", KEYS[1], ARGV[1]) == ARGV[2] then redis.call("HDEL", KEYS[1], ARGV[1]) end
return 0`;

const SETTLED = `return {redis.call("HGET", KEYS[1], "record"), redis.call("HLEN", KEYS[2])}`;

/**
 * Whether the items of a distributed run may start, for every worker at once. A halt (a budget
 * stop, a failed item under `fail`) closes the gate: no worker starts another item of the run, and
 * items already going finish. Items are registered while they run, so the enqueuer can tell when a
 * halted run has settled and assemble it. `resume` reopens the gate.
 */
export class RunGate {
  readonly #store: RunStore;

  constructor(store: RunStore) {
    this.#store = store;
  }

  /** Halts the run unless it is halted already; true when this call halted it. */
  async halt(runId: string, halt: RunHalt): Promise<boolean> {
    return (await this.#store.redis.eval(HALT, 1, this.#key(runId), halt.reason, JSON.stringify(halt))) === 1;
  }

  /** Why the run halted, if it did. */
  async halted(runId: string): Promise<RunHalt | undefined> {
    return parseHalt(await this.#store.redis.hget(this.#key(runId), "record"));
  }

  /** Registers an execution of item `index` as running; false (nothing registered) when the run is halted. */
  async enter(runId: string, index: number, execution: string): Promise<boolean> {
    return (
      (await this.#store.redis.eval(ENTER, 2, this.#key(runId), this.#running(runId), String(index), execution)) === 1
    );
  }

  /** Unregisters the execution once the item has ended. */
  async leave(runId: string, index: number, execution: string): Promise<void> {
    await this.#store.redis.eval(LEAVE, 1, this.#running(runId), String(index), execution);
  }

  /** The halt, once no item of the run is running any more; undefined while the run is open or items still run. */
  async settledHalt(runId: string): Promise<RunHalt | undefined> {
    const [record, running] = (await this.#store.redis.eval(SETTLED, 2, this.#key(runId), this.#running(runId))) as [
      string | null,
      number,
    ];
    return running === 0 ? parseHalt(record) : undefined;
  }

  /** Lets the run start items again (resume). */
  async reopen(runId: string): Promise<void> {
    await this.#store.redis.del(this.#key(runId));
  }

  #key(runId: string): string {
    return this.#store.keyOf(runId, HALT_PART);
  }

  #running(runId: string): string {
    return this.#store.keyOf(runId, "running");
  }
}

function parseHalt(record: string | null): RunHalt | undefined {
  return record === null ? undefined : runHaltSchema.parse(JSON.parse(record));
}
