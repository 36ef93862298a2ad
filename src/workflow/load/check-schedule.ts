import { CronSchedule } from "../schedule/cron-schedule.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import type { RawIssue } from "./zod-issues.js";

/** Checks `schedule:` at load (cron expression and time zone), so validate refuses what schedule would. */
export function checkSchedule(definition: WorkflowDefinition): RawIssue[] {
  const schedule = definition.schedule;
  if (schedule === undefined) return [];
  try {
    new CronSchedule(schedule.cron, schedule.timezone, "schedule");
    return [];
  } catch (error) {
    const message = (error as Error).message.replace(/^schedule: /, "");
    return [{ path: ["schedule"], key: message.startsWith("schedule.timezone") ? "timezone" : "cron", message }];
  }
}
