import { once } from "node:events";
import { resolve } from "node:path";
import { redactSecrets } from "../../errors.js";
import { startItemWorker } from "../../workflow/distributed/start-item-worker.js";
import { UsageError, type Command } from "../command.js";
import { numberFlag, parseCommandArgs } from "../parse-args.js";

/** `svc-flow worker --redis URL`: runs items of distributed runs from the shared queue until stopped. */
export const workerCommand: Command = {
  usage:
    "svc-flow worker --redis URL [--artifacts DIR] [--concurrency N] [--rpm N] [--global-concurrency N] [--lock-ms MS]   (--rpm and --global-concurrency hold across all workers)",
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, {
      redis: { type: "string" },
      artifacts: { type: "string" },
      concurrency: { type: "string" },
      rpm: { type: "string" },
      "global-concurrency": { type: "string" },
      "lock-ms": { type: "string" },
    });
    if (positionals.length > 0) throw new UsageError("svc-flow worker takes no file: it runs whatever `svc-flow run --redis` enqueues.");
    if (values.redis === undefined) throw new UsageError("Pass --redis URL (e.g. redis://127.0.0.1:6379), the Redis every worker shares.");
    const whole = (name: string, value: string | undefined) => {
      const parsed = numberFlag(name, value, { min: 1 });
      if (parsed !== undefined && !Number.isInteger(parsed)) throw new UsageError(`Expected --${name} to be a whole number, got "${value}".`);
      return parsed;
    };
    const concurrency = whole("concurrency", values.concurrency);
    const itemsPerMinute = whole("rpm", values.rpm);
    const globalConcurrency = whole("global-concurrency", values["global-concurrency"]);
    const lockMs = whole("lock-ms", values["lock-ms"]);
    const artifactsDir = resolve(context.cwd, values.artifacts ?? "runs");
    const worker = await startItemWorker({
      redisURL: values.redis,
      artifactsDir,
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(itemsPerMinute === undefined ? {} : { itemsPerMinute }),
      ...(globalConcurrency === undefined ? {} : { globalConcurrency }),
      ...(lockMs === undefined ? {} : { lockMs }),
      gateway: { env: context.env, notice: (line) => context.stderr.write(`${line}\n`) },
      onItem: ({ runId, index, outcome, error }) => {
        if (outcome === "failed") context.stderr.write(`${runId} item ${index}: ${redactSecrets(error instanceof Error ? error.message : String(error))}; it goes back on the queue\n`);
        if (outcome === "stopped") context.stderr.write(`${runId} item ${index}: stopped by the run's budget; it runs on svc-flow resume ${runId} --redis URL --budget YUAN\n`);
      },
    });
    context.stdout.write(`svc-flow worker ready (pid ${process.pid}, redis ${redactURL(values.redis)}, artifacts ${artifactsDir}). Ctrl-C stops after the items in flight.\n`);
    if (!context.signal.aborted) await once(context.signal, "abort");
    await worker.close();
    return 0;
  },
};

// A Redis URL may carry a password (redis://:secret@host).
function redactURL(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}
