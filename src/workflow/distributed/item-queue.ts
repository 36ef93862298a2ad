import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { connectRedis } from "./connect-redis.js";

/** The BullMQ queue every worker takes items from. */
export const ITEM_QUEUE = "svc-flow-items";

/** What a job carries: which item of which run (the item itself is in the run store). */
export interface ItemJob {
  readonly runId: string;
  readonly index: number;
}

/** How often a job is tried when its worker throws (a crash or shutdown is not an attempt). */
export const ITEM_ATTEMPTS = 5;

/** The job id of an item: the same item enqueued twice is one job. */
export function itemJobId(runId: string, index: number): string {
  return `${runId}-${index}`;
}

/** A BullMQ connection to `url`, as BullMQ wants it (blocking commands never time out). */
export function queueConnection(url: string): Redis {
  return connectRedis(url);
}

/** The item queue on `connection`. */
export function itemQueue(connection: Redis): Queue<ItemJob> {
  return new Queue<ItemJob>(ITEM_QUEUE, { connection });
}

/**
 * Puts back an item that was answered (`svc-flow approve`): a job of its own (`runId-index-TAG`), so
 * it is added even while the job that left the item waiting is still being removed.
 */
export async function enqueueAnsweredItem(
  queue: Queue<ItemJob>,
  runId: string,
  index: number,
  tag: string,
): Promise<void> {
  await queue.add("item", { runId, index }, { ...JOB_OPTIONS, jobId: `${itemJobId(runId, index)}-${tag}` });
}

const JOB_OPTIONS = {
  attempts: ITEM_ATTEMPTS,
  backoff: { type: "exponential", delay: 1000 },
  removeOnComplete: true,
  removeOnFail: true,
} as const;

/**
 * Adds the items' jobs in chunks. Job ids are deterministic, so re-adding an item whose job is
 * waiting or running does nothing; finished jobs are removed, and their items skip (the result is
 * stored) if they come again.
 */
export async function enqueueItems(queue: Queue<ItemJob>, runId: string, indexes: Iterable<number>): Promise<number> {
  let count = 0;
  let chunk: number[] = [];
  const flush = async () => {
    await queue.addBulk(
      chunk.map((index) => ({
        name: "item",
        data: { runId, index },
        opts: { ...JOB_OPTIONS, jobId: itemJobId(runId, index) },
      })),
    );
    count += chunk.length;
    chunk = [];
  };
  for (const index of indexes) {
    chunk.push(index);
    if (chunk.length === 500) await flush();
  }
  if (chunk.length > 0) await flush();
  return count;
}
