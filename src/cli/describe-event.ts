import { basename } from "node:path";
import { formatYuan } from "../cost/format-summary-table.js";
import type { WorkflowEvent } from "../workflow/workflow-event.js";
import type { TerminalStyle } from "./terminal-style.js";

/** Seconds as the live view shows them: `0.4s`, `12s`, `2m05s`. */
export function formatSeconds(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
}

/** One log line for an event; undefined for events only the status lines show. */
export function describeEvent(event: WorkflowEvent, style: TerminalStyle): string | undefined {
  switch (event.type) {
    case "run-started":
      return `${event.resumed ? "Resuming" : "Running"} ${event.steps} step(s) in ${event.runDir}`;
    case "step-started":
      return style.dim(`… ${event.key} (${event.kind})`);
    case "step-finished":
      if (event.reused !== undefined)
        return `${style.green("✓")} ${event.key} ${style.dim(`reused from ${basename(event.reused.runDir)}, ¥0`)}`;
      return event.replayed
        ? `${style.green("✓")} ${event.key} ${style.dim("(from the journal)")}`
        : `${style.green("✓")} ${event.key} ${style.dim(formatSeconds(event.durationMs))}${event.costYuan > 0 ? ` ${formatYuan(event.costYuan)}` : ""}`;
    case "step-skipped":
      return style.dim(`- ${event.key} skipped${event.replayed ? " (from the journal)" : " (if: was false)"}`);
    case "step-failed":
      return `${style.red("✗")} ${event.key}: ${event.error.message} ${style.dim(`[${event.error.code}]`)}`;
    case "step-waiting":
      return `${style.cyan("?")} ${event.key} waits for a decision: ${event.prompt}`;
    case "step-retry": {
      const wait = event.delayMs === undefined ? "trying again" : `retrying in ${formatSeconds(event.delayMs)}`;
      return `${style.yellow("↻")} ${event.key}: ${event.model === undefined ? "" : `${event.model} `}attempt ${event.attempt} failed (${event.errorCode}); ${wait}`;
    }
    case "step-fallback":
      return `${style.yellow("↪")} ${event.key}: ${event.message}`;
    case "map-progress":
      return `  ${event.key}: ${event.done}/${event.total} done${event.failed > 0 ? `, ${event.failed} failed` : ""}`;
    case "warning":
      return `${style.yellow("!")} ${event.message}`;
    case "cost":
    case "run-finished":
      return undefined;
  }
}
