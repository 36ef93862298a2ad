import { ConfigError } from "../../errors.js";
import type { Workflow } from "../load/load-workflow.js";
import { CronSchedule } from "./cron-schedule.js";
import type { ScheduledJob } from "./run-scheduler.js";

/** The scheduled job of a loaded workflow: its `schedule:` checked (cron, time zone), defaults applied. */
export function jobFromWorkflow(workflow: Workflow): ScheduledJob {
  const schedule = workflow.definition.schedule;
  if (schedule === undefined) {
    throw new ConfigError(
      `${workflow.file} has no schedule:. Add e.g. schedule: { cron: "0 6 * * 1-5", timezone: "Europe/Paris" } to run it on a schedule, or run it once with svc-flow run.`,
      { code: "invalid_workflow" },
    );
  }
  return {
    name: workflow.name,
    file: workflow.file,
    schedule: new CronSchedule(schedule.cron, schedule.timezone, workflow.file),
    overlap: schedule.overlap ?? "skip",
    catchUp: schedule.catchUp ?? false,
  };
}

/** Jobs for several workflows; two with one name would share state and run directories, so that is refused. */
export function jobsFromWorkflows(workflows: readonly Workflow[]): ScheduledJob[] {
  const jobs = workflows.map(jobFromWorkflow);
  const seen = new Map<string, string>();
  for (const job of jobs) {
    const other = seen.get(job.name);
    if (other !== undefined) {
      throw new ConfigError(
        `${other} and ${job.file} are both named "${job.name}". Give one a different name: so their runs and state stay apart.`,
        {
          code: "invalid_workflow",
        },
      );
    }
    seen.set(job.name, job.file);
  }
  return jobs;
}
