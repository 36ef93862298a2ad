import { resolve } from "node:path";
import { redactSecrets } from "../../errors.js";
import { formatYuan } from "../../cost/format-summary-table.js";
import { connectGateway } from "../compose-run.js";
import { redactRedisURL } from "../../workflow/distributed/connect-redis.js";
import { checkRedis } from "../check-redis.js";
import { loadWorkflow } from "../../workflow/load/load-workflow.js";
import { jobsFromWorkflows } from "../../workflow/schedule/job-from-workflow.js";
import { LocalRunner } from "../../workflow/schedule/local-runner.js";
import { QueueRunner } from "../../workflow/distributed/queue-runner.js";
import { runScheduler, type ScheduledJob } from "../../workflow/schedule/run-scheduler.js";
import type { SchedulerEvent } from "../../workflow/schedule/scheduler-event.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs } from "../parse-args.js";
import { callableModels } from "../callable-models.js";
import { readRunFlags, RUN_FLAGS } from "../run-flags.js";
import { workflowPath } from "../workflow-path.js";

const FLAGS = {
  runs: { type: "string", value: "DIR", help: "Where each firing's run directory goes; default: runs" },
  "catch-up": { type: "boolean", help: "Run once at start for a firing missed while stopped" },
  ...RUN_FLAGS,
  budget: { ...RUN_FLAGS.budget, help: "Cap of each run, in yuan; default: each file's budget:" },
  redis: { type: "string", value: "URL", help: "Run the items on svc-flow workers that share this Redis" },
} as const satisfies FlagSpecs;

/** `svc-flow schedule FILE... [--runs DIR] [--catch-up] [run flags]`: runs workflows on their `schedule:` until stopped. */
export const scheduleCommand: Command = {
  usage: "svc-flow schedule FILE... [options]",
  flags: FLAGS,
  notes: ["Runs until stopped; Ctrl-C stops cleanly."],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length === 0) throw new UsageError("Name at least one workflow file with a schedule:.");
    const flags = await readRunFlags(values, context.cwd, context.signal);
    // Firings on this machine use this process's gateway settings: a wrong key or a missing SVC_BASE_URL is
    // refused now (exit 2), not at every firing.
    const models = values.redis === undefined ? await callableModels(context.env, context.signal) : undefined;
    const workflows = await Promise.all(
      positionals.map((file) =>
        loadWorkflow(workflowPath(context.cwd, file), {
          ...flags,
          signal: context.signal,
          ...(models === undefined ? {} : { models }),
        }),
      ),
    );
    const jobs = jobsFromWorkflows(workflows);
    const runsDir = resolve(context.cwd, values.runs ?? "runs");
    const log = (line: string) => context.stdout.write(`${new Date().toISOString()} ${line}\n`);

    if (values.redis !== undefined) {
      await checkRedis(values.redis);
      context.stderr.write(
        `svc-flow schedule: ${jobs.length} workflow(s), items run on the workers of ${redactRedisURL(values.redis)}, runs in ${runsDir}.\n`,
      );
      const summary = await runScheduler(jobs, {
        runner: new QueueRunner(values.redis, {
          budgetYuan: flags.budgetYuan,
          prices: flags.prices,
          allowUnpriced: flags.allowUnpriced,
        }),
        runsDir,
        signal: context.signal,
        catchUp: values["catch-up"] === true,
        onEvent: (event) => log(describeEvent(event, jobs)),
      });
      log(`stopped: ${summary.started} run(s) started, ${summary.skipped} firing(s) skipped, ${summary.failed} failed`);
      return 0;
    }
    for (const job of jobs)
      log(
        `${job.name}: cron "${job.schedule.cron}" (${job.schedule.timezone ?? "local time"}), overlap ${job.overlap}`,
      );
    context.stderr.write(
      `svc-flow schedule: ${jobs.length} workflow(s), runs in ${runsDir}. Ctrl-C stops after runs in flight save their progress.\n`,
    );
    // Each firing connects as a run does: to the configured gateway, or to a local one of its own that keeps its
    // state in the firing's run directory, so `svc-flow resume` of an interrupted firing finds its music jobs.
    const runner = new LocalRunner({
      ...flags,
      connect: (options) => connectGateway({ ...options, notice: (line) => context.stderr.write(`${line}\n`) }),
      env: context.env,
    });
    const summary = await runScheduler(jobs, {
      runner,
      runsDir,
      signal: context.signal,
      catchUp: values["catch-up"] === true,
      onEvent: (event) => log(describeEvent(event, jobs)),
    });
    log(`stopped: ${summary.started} run(s) started, ${summary.skipped} firing(s) skipped, ${summary.failed} failed`);
    return 0;
  },
};

/** One log line for a scheduler event. */
export function describeEvent(event: SchedulerEvent, jobs: readonly ScheduledJob[]): string {
  const at = (timeMs: number) => new Date(timeMs).toISOString();
  const overlap = "name" in event ? jobs.find((job) => job.name === event.name)?.overlap : undefined;
  switch (event.type) {
    case "next":
      return `${event.name}: next firing at ${at(event.atMs)}`;
    case "missed":
      return event.catchUp
        ? `${event.name}: catching up ${event.count}${event.more ? " (the latest; older ones left out)" : ""} firing(s) missed while stopped`
        : `${event.name}: missed ${event.count}${event.more ? "+" : ""} firing(s) while not running; not run (pass --catch-up, or set schedule.catchUp, to run them)`;
    case "started":
      return `${event.name}: started the ${at(event.scheduledAtMs)} firing in ${event.runDir}`;
    case "skipped":
      return event.reason === "running"
        ? `${event.name}: skipped the ${at(event.scheduledAtMs)} firing: the previous run is still going (overlap: ${overlap})`
        : `${event.name}: skipped the ${at(event.scheduledAtMs)} firing: one firing already waits (overlap: ${overlap})`;
    case "queued":
      return `${event.name}: the ${at(event.scheduledAtMs)} firing waits for the previous run (overlap: ${overlap})`;
    case "dropped":
      return `${event.name}: dropped the waiting ${at(event.scheduledAtMs)} firing (stopping)`;
    case "finished": {
      const { outcome } = event;
      const cost = outcome.costYuan === undefined ? "" : `, ${formatYuan(outcome.costYuan)}`;
      const why = outcome.error === undefined ? "" : `: ${redactSecrets(errorMessage(outcome.error))}`;
      return `${event.name}: ${outcome.state}${cost} (${at(event.scheduledAtMs)} firing, ${outcome.runDir})${why}`;
    }
    case "stopping":
      return `stopping: no new firings; waiting for ${event.inFlight} run(s) to save their progress (Ctrl-C again quits at once)`;
  }
}

function errorMessage(error: unknown): string {
  if (typeof error === "object" && error !== null && "message" in error)
    return String((error as { message: unknown }).message);
  return String(error);
}
