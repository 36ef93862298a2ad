import { Redis } from "ioredis";

/** The Redis URLs whose connection is lost right now: one warning an outage, however many connections see it. */
const lost = new Set<string>();

/**
 * A connection to the Redis at `url` for the distributed parts. Commands wait for a lost connection
 * to come back (`maxRetriesPerRequest: null`, as BullMQ wants), which is right for a Redis that
 * restarts; but with nobody listening, ioredis prints a stack trace for every failed reconnection,
 * several a second for as long as Redis is gone. Here the loss is said once, as a process warning
 * (`SVC_FLOW_REDIS_LOST`), and again only after the connection was back in between.
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on("error", (error: NodeJS.ErrnoException) => {
    if (lost.has(url)) return;
    lost.add(url);
    process.emitWarning(
      `Lost the connection to Redis at ${redactRedisURL(url)} (${error.code ?? error.message}); waiting for it to come back.`,
      { code: "SVC_FLOW_REDIS_LOST" },
    );
  });
  redis.on("ready", () => lost.delete(url));
  return redis;
}

/** A Redis URL for messages: a password in it (redis://:secret@host) is masked. */
export function redactRedisURL(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}
