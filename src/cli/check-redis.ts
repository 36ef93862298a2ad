import { ConfigError } from "../errors.js";
import { redactRedisURL } from "../workflow/distributed/connect-redis.js";

/** How long the first connection to a `--redis` URL may take before it counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Connects to a `--redis` URL once, before a command relies on it: the distributed parts retry a
 * lost connection for ever (right for a Redis that restarts), so a wrong URL or a Redis that is not
 * running would otherwise be an endless stream of client stack traces. Refuses with one line naming
 * the fix (`redis_unreachable`, exit 2).
 */
export async function checkRedis(url: string): Promise<void> {
  const { Redis } = await import("ioredis");
  let client: InstanceType<typeof Redis>;
  try {
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
  } catch (error) {
    throw unreachable(url, error);
  }
  // Without a listener the client prints every connection error itself; the first one says why (ECONNREFUSED).
  let cause: unknown;
  client.on("error", (error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw unreachable(url, cause ?? error);
  } finally {
    client.disconnect();
  }
}

function unreachable(url: string, error: unknown): ConfigError {
  const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
  return new ConfigError(
    `Cannot reach Redis at ${redactRedisURL(url)} (${reason}). Start redis-server there, or pass the --redis URL ` +
      "(redis://HOST:PORT) of the Redis the workers share.",
    { code: "redis_unreachable" },
  );
}
