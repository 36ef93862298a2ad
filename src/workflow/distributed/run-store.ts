import type { Redis } from "ioredis";
import { connectRedis } from "./connect-redis.js";
import { z } from "zod";
import { ConfigError } from "../../errors.js";
import { ITEMS_FORMATS } from "../batch/read-items.js";
import { journalRecordSchema, runStartedSchema, type JournalRecord } from "../run/journal-records.js";
import type { JournalSink } from "../run/run-journal.js";
import { WAITING_PART } from "./item-approvals.js";

/** What every worker needs to run the items of a distributed run; stored once when the run is enqueued. */
export const runSpecSchema = z.object({
  version: z.literal(1),
  start: runStartedSchema,
  /** The workflow file's text: workers parse it, so they need no copy of the file. */
  workflowText: z.string(),
  /** The `type: items` input each item becomes; undefined: each item is an object of input values. */
  inputName: z.string().optional(),
  total: z.int().nonnegative(),
  onItemError: z.enum(["fail", "skip", "collect"]),
  /** The run directory on the machine that enqueued it (where outputs are assembled). */
  runDir: z.string(),
  /** The items file on that machine and its format, for the report's rows (absent in runs enqueued before it was kept). */
  itemsFile: z.string().optional(),
  itemsFormat: z.enum(ITEMS_FORMATS).optional(),
});
/** A distributed run's stored description. */
export type RunSpec = z.infer<typeof runSpecSchema>;

/** One finished item as stored: its output, or why it failed. */
export const storedResultSchema = z.object({
  index: z.int().nonnegative(),
  line: z.int().nonnegative(),
  state: z.enum(["done", "failed"]),
  output: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
/** An item's result in the store. */
export type StoredResult = z.infer<typeof storedResultSchema>;

// A finished item waits for nothing (a late execution may have marked it waiting after it was answered).
const FINISH_ITEM = `
redis.call("HDEL", KEYS[3], ARGV[1])
if redis.call("HSETNX", KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call("HINCRBY", KEYS[2], ARGV[3], 1)
  return 1
end
return 0`;

/** One item to run: its value and the line of the items file it came from. */
export interface StoredItem {
  readonly value: unknown;
  readonly line: number;
}

/** How far a distributed run is. */
export interface RunCounts {
  readonly total: number;
  readonly done: number;
  readonly failed: number;
}

/**
 * The state of distributed runs in Redis, where every worker and `resume` see it: the run's spec,
 * its items, each item's journal (a list per item, so a re-run item replays only its own records)
 * and each item's result (set once: the first finisher wins, so an item counts once).
 */
export class RunStore {
  readonly redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix = "svc-flow:run") {
    this.redis = redis;
    this.#prefix = prefix;
  }

  /** A store on its own connection to `url` (redis://host:port/db). */
  static connect(url: string): RunStore {
    return new RunStore(connectRedis(url));
  }

  #key(runId: string, part: string): string {
    return `${this.#prefix}:${runId}:${part}`;
  }

  /** The key of one part of a run, for what is kept beside the store's own (its budget, its halt). */
  keyOf(runId: string, part: string): string {
    return this.#key(runId, part);
  }

  /** Stores a run's items (streamed, in chunks so a large run is a few round trips); returns how many. */
  async addItems(runId: string, items: AsyncIterable<{ index: number } & StoredItem>): Promise<number> {
    let count = 0;
    let chunk: Record<string, string> = {};
    const flush = async () => {
      if (Object.keys(chunk).length > 0) await this.redis.hset(this.#key(runId, "items"), chunk);
      chunk = {};
    };
    for await (const item of items) {
      chunk[String(item.index)] = JSON.stringify({ value: item.value, line: item.line });
      count++;
      if (count % 500 === 0) await flush();
    }
    await flush();
    return count;
  }

  /** Saves a run's spec (after its items, so a worker that sees the spec finds every item). */
  async saveSpec(spec: RunSpec): Promise<void> {
    await this.redis.set(this.#key(spec.start.runId, "spec"), JSON.stringify(spec));
  }

  /** The run's spec; a run id Redis does not know is a ConfigError that says where runs come from. */
  async spec(runId: string): Promise<RunSpec> {
    const text = await this.redis.get(this.#key(runId, "spec"));
    if (text === null) {
      throw new ConfigError(
        `Redis has no run ${runId}. Pass the run id \`svc-flow run --redis\` printed, and the same --redis URL.`,
        { code: "invalid_run_id" },
      );
    }
    return runSpecSchema.parse(JSON.parse(text));
  }

  /** Item `index` of a run. */
  async item(runId: string, index: number): Promise<StoredItem> {
    const text = await this.redis.hget(this.#key(runId, "items"), String(index));
    if (text === null)
      throw new ConfigError(`Run ${runId} has no item ${index}; its data in Redis is gone or incomplete.`, {
        code: "invalid_run_id",
      });
    return JSON.parse(text) as StoredItem;
  }

  /** The journal of one item as a sink the engine appends to. */
  itemJournal(runId: string, index: number): JournalSink {
    const key = this.#key(runId, `journal:${index}`);
    return { append: async (record) => void (await this.redis.rpush(key, JSON.stringify(record))) };
  }

  /** What one item's journal holds (steps it finished before a worker died). */
  async itemRecords(runId: string, index: number): Promise<JournalRecord[]> {
    const lines = await this.redis.lrange(this.#key(runId, `journal:${index}`), 0, -1);
    return lines.map((line) => journalRecordSchema.parse(JSON.parse(line)));
  }

  /** The journals of many items, in one round trip per 500. */
  async *journals(runId: string, total: number): AsyncGenerator<JournalRecord[]> {
    for (let start = 0; start < total; start += 500) {
      const pipeline = this.redis.pipeline();
      for (let index = start; index < Math.min(total, start + 500); index++)
        pipeline.lrange(this.#key(runId, `journal:${index}`), 0, -1);
      for (const [error, lines] of (await pipeline.exec()) ?? []) {
        if (error !== null) throw error;
        yield (lines as string[]).map((line) => journalRecordSchema.parse(JSON.parse(line)));
      }
    }
  }

  /** Records an item's result unless one is there; true when this call recorded it. */
  async finishItem(runId: string, result: StoredResult): Promise<boolean> {
    // One script, so a worker killed between the two writes cannot leave the counts behind the results.
    const added = await this.redis.eval(
      FINISH_ITEM,
      3,
      this.#key(runId, "results"),
      this.#key(runId, "counts"),
      this.#key(runId, WAITING_PART),
      String(result.index),
      JSON.stringify(result),
      result.state,
    );
    return added === 1;
  }

  /** Whether item `index` has a result. */
  async hasResult(runId: string, index: number): Promise<boolean> {
    return (await this.redis.hexists(this.#key(runId, "results"), String(index))) === 1;
  }

  /** Done and failed items so far. */
  async counts(runId: string, total: number): Promise<RunCounts> {
    const counts = await this.redis.hgetall(this.#key(runId, "counts"));
    return { total, done: Number(counts.done ?? 0), failed: Number(counts.failed ?? 0) };
  }

  /** Every item result, in index order, streamed in pages. */
  async *results(runId: string): AsyncGenerator<StoredResult> {
    const all: StoredResult[] = [];
    let cursor = "0";
    do {
      const [next, pairs] = await this.redis.hscan(this.#key(runId, "results"), cursor, "COUNT", 1000);
      cursor = next;
      for (let index = 1; index < pairs.length; index += 2)
        all.push(storedResultSchema.parse(JSON.parse(pairs[index]!)));
    } while (cursor !== "0");
    yield* all.sort((left, right) => left.index - right.index);
  }

  /** Forgets the failed results so `resume` runs those items again; returns their indexes. */
  async clearFailed(runId: string): Promise<number[]> {
    const failed: number[] = [];
    for await (const result of this.results(runId)) if (result.state === "failed") failed.push(result.index);
    if (failed.length > 0) {
      await this.redis.hdel(this.#key(runId, "results"), ...failed.map(String));
      await this.redis.hincrby(this.#key(runId, "counts"), "failed", -failed.length);
    }
    return failed;
  }

  /** Indexes below `total` without a result. */
  async missing(runId: string, total: number): Promise<number[]> {
    const have = new Set<number>();
    for await (const result of this.results(runId)) have.add(result.index);
    return Array.from({ length: total }, (_, index) => index).filter((index) => !have.has(index));
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
