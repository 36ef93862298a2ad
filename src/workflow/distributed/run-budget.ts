import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { roundYuan } from "../../catalog/prices.js";
import type { BudgetAccount, HoldAnswer } from "../../cost/budget-account.js";
import type { BudgetState } from "../../cost/budget-errors.js";
import { ADOPT, CLOSE, HOLD, REFUND, RELEASE, SETTLE } from "./budget-scripts.js";
import { HALT_PART } from "./run-gate.js";
import type { RunStore } from "./run-store.js";

// Redis keeps whole units of 1e-8 yuan, the precision roundYuan keeps.
const UNITS_PER_YUAN = 1e8;
const toUnits = (yuan: number) => Math.round(yuan * UNITS_PER_YUAN);
const toYuan = (units: number) => roundYuan(units / UNITS_PER_YUAN);

/**
 * The budget of one distributed run, in Redis, where every worker holds against it. Holds belong to
 * one execution of one item. A worker that dies leaves its holds in place (its calls may have been
 * billed); the next execution of that item (after --lock-ms, or on resume) adopts them as credit
 * for its own calls, and releases what is left when it ends. So nothing leaks, and nothing a dead
 * worker may have spent is given to another call in the meantime.
 */
export class RunBudget {
  readonly #redis: Redis;
  readonly #runId: string;
  readonly #store: RunStore;

  constructor(store: RunStore, runId: string) {
    this.#store = store;
    this.#redis = store.redis;
    this.#runId = runId;
  }

  /** Sets the cap (a new run's budget, or `resume --budget`); it holds for every worker's next call. */
  async setMax(maxYuan: number): Promise<void> {
    if (!(maxYuan > 0) || !Number.isFinite(maxYuan))
      throw new RangeError(`Expected the budget to be above 0 yuan, got ${maxYuan}.`);
    await this.#redis.hset(this.#key("budget"), "max", toUnits(maxYuan));
  }

  /** The cap, what is spent and what calls in flight hold; undefined when the run has no budget. */
  async state(): Promise<BudgetState | undefined> {
    const [max, spent, held] = await this.#redis.hmget(this.#key("budget"), "max", "spent", "held");
    if (max === null) return undefined;
    return { maxYuan: toYuan(Number(max)), spentYuan: toYuan(Number(spent ?? 0)), heldYuan: toYuan(Number(held ?? 0)) };
  }

  /** Starts `execution` of item `index`: adopts what earlier executions left. Undefined when the run has no budget. */
  async open(index: number, execution: string): Promise<ItemBudget | undefined> {
    const [hasBudget, adopted] = (await this.#redis.eval(
      ADOPT,
      2,
      this.#key("budget"),
      this.#holds(index),
      execution,
    )) as [number, number];
    const budget = new ItemBudget(
      this.#redis,
      {
        budget: this.#key("budget"),
        holds: this.#holds(index),
        halt: this.#key(HALT_PART),
        refundable: this.#key("refundable"),
      },
      execution,
    );
    if (hasBudget === 1) return budget;
    if (adopted > 0) await budget.close();
    return undefined;
  }

  /** Releases whatever earlier executions of item `index` hold (the item is not going to run here). */
  async reconcile(index: number): Promise<void> {
    const execution = randomUUID();
    await this.#redis.eval(ADOPT, 2, this.#key("budget"), this.#holds(index), execution);
    await this.#redis.eval(CLOSE, 2, this.#key("budget"), this.#holds(index), execution);
  }

  #key(part: string): string {
    return this.#store.keyOf(this.#runId, part);
  }

  #holds(index: number): string {
    return this.#key(`holds:${index}`);
  }
}

/** The Redis keys an item's budget uses: the run's budget, halt and refundable bills, and the item's holds. */
export interface ItemBudgetKeys {
  readonly budget: string;
  readonly holds: string;
  readonly halt: string;
  readonly refundable: string;
}

/**
 * The run's budget as one execution of one item uses it: the account of that item's ledger. Settle,
 * release and refund are written in the background on the store's connection (so a cost lands
 * before the journal records that follow it); close waits for them, then releases what the
 * execution still holds.
 */
export class ItemBudget implements BudgetAccount {
  readonly #redis: Redis;
  readonly #keys: ItemBudgetKeys;
  readonly #execution: string;
  readonly #writes = new Set<Promise<void>>();
  #failure: unknown;
  #holds = 0;

  constructor(redis: Redis, keys: ItemBudgetKeys, execution: string) {
    this.#redis = redis;
    this.#keys = keys;
    this.#execution = execution;
  }

  /** Holds `yuan` against the run's cap, after this execution's credit; refuses when it does not fit or the run was stopped by its budget. */
  async hold(yuan: number): Promise<HoldAnswer> {
    const id = `${this.#execution}:${++this.#holds}`;
    const { budget, holds, halt } = this.#keys;
    const answer = (await this.#redis.eval(
      HOLD,
      3,
      budget,
      holds,
      halt,
      this.#execution,
      id,
      toUnits(yuan),
    )) as number[];
    const [granted = 0, max = 0, spent = 0, held = 0, stopped = 0] = answer;
    if (granted !== 1)
      return {
        refused: { maxYuan: toYuan(max), spentYuan: toYuan(spent), heldYuan: toYuan(held), stopped: stopped === 1 },
      };
    return {
      hold: {
        settle: (cost, refundId) =>
          this.#write(
            SETTLE,
            [budget, holds, this.#keys.refundable],
            id,
            toUnits(cost),
            ...(refundId === undefined ? [] : [refundId]),
          ),
        release: () => this.#write(RELEASE, [budget, holds], id),
      },
    };
  }

  /** Takes a refunded bill back off the run's spent, once per bill across executions, in the background like a settle (close waits for it). */
  refund(refundId: string): void {
    this.#write(REFUND, [this.#keys.budget, this.#keys.refundable], refundId);
  }

  /** Waits for the writes in flight, then releases the execution's unused credit and any hold it left open. */
  async close(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all(this.#writes);
    const { budget, holds } = this.#keys;
    await this.#redis.eval(CLOSE, 2, budget, holds, this.#execution);
    if (this.#failure !== undefined) throw this.#failure;
  }

  #write(script: string, keys: readonly string[], ...args: (string | number)[]): void {
    const write: Promise<void> = this.#redis
      .eval(script, keys.length, ...keys, ...args)
      .then(
        () => undefined,
        (error: unknown) => void (this.#failure ??= error),
      )
      .finally(() => this.#writes.delete(write));
    this.#writes.add(write);
  }
}
