import { once } from "node:events";
import { resolve } from "node:path";
import { redactSecrets } from "../../errors.js";
import { startItemWorker } from "../../workflow/distributed/start-item-worker.js";
import { connectGateway } from "../compose-run.js";
import { redactRedisURL } from "../../workflow/distributed/connect-redis.js";
import { checkRedis } from "../check-redis.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { numberFlag, parseCommandArgs } from "../parse-args.js";

const FLAGS = {
  redis: { type: "string", value: "URL", help: "The Redis every worker and svc-flow run --redis share (required)" },
  artifacts: { type: "string", value: "DIR", help: "Folder for the items' artifacts; default: runs" },
  concurrency: { type: "string", value: "N", help: "Items this worker runs at once" },
  rpm: { type: "string", value: "N", help: "Items started per minute, across all workers" },
  "global-concurrency": { type: "string", value: "N", help: "Items in flight at once, across all workers" },
  "lock-ms": {
    type: "string",
    value: "MS",
    help: "How long a claimed item may go without a heartbeat before another worker takes it",
  },
} as const satisfies FlagSpecs;

/** `svc-flow worker --redis URL`: runs items of distributed runs from the shared queue until stopped. */
export const workerCommand: Command = {
  usage: "svc-flow worker --redis URL [options]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length > 0)
      throw new UsageError("svc-flow worker takes no file: it runs whatever `svc-flow run --redis` enqueues.");
    if (values.redis === undefined)
      throw new UsageError("Pass --redis URL (e.g. redis://127.0.0.1:6379), the Redis every worker shares.");
    const whole = (name: string, value: string | undefined) => {
      const parsed = numberFlag(name, value, { min: 1 });
      if (parsed !== undefined && !Number.isInteger(parsed))
        throw new UsageError(`Expected --${name} to be a whole number, got "${value}".`);
      return parsed;
    };
    const concurrency = whole("concurrency", values.concurrency);
    const itemsPerMinute = whole("rpm", values.rpm);
    const globalConcurrency = whole("global-concurrency", values["global-concurrency"]);
    const lockMs = whole("lock-ms", values["lock-ms"]);
    const artifactsDir = resolve(context.cwd, values.artifacts ?? "runs");
    await checkRedis(values.redis);
    const worker = await startItemWorker({
      redisURL: values.redis,
      artifactsDir,
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(itemsPerMinute === undefined ? {} : { itemsPerMinute }),
      ...(globalConcurrency === undefined ? {} : { globalConcurrency }),
      ...(lockMs === undefined ? {} : { lockMs }),
      gateway: { env: context.env, notice: (line) => context.stderr.write(`${line}\n`) },
      connect: connectGateway,
      onItem: ({ runId, index, outcome, error }) => {
        if (outcome === "failed")
          context.stderr.write(
            `${runId} item ${index}: ${redactSecrets(error instanceof Error ? error.message : String(error))}; it goes back on the queue\n`,
          );
        if (outcome === "stopped")
          context.stderr.write(
            `${runId} item ${index}: stopped by the run's budget; it runs on svc-flow resume ${runId} --redis URL --budget YUAN\n`,
          );
        if (outcome === "waiting")
          context.stderr.write(
            `${runId} item ${index}: waiting for a decision; it runs again once answered (svc-flow approve)\n`,
          );
      },
    });
    context.stdout.write(
      `svc-flow worker ready (pid ${process.pid}, redis ${redactRedisURL(values.redis)}, artifacts ${artifactsDir}). Ctrl-C stops after the items in flight.\n`,
    );
    if (!context.signal.aborted) await once(context.signal, "abort");
    await worker.close();
    return 0;
  },
};
