import type { Writable } from "node:stream";
import { formatYuan } from "../cost/format-summary-table.js";
import type { WorkflowEvent } from "../workflow/workflow-event.js";

/** Renders run progress: a line per finished unit, plus (on a TTY) one status line kept at the bottom. */
export function progressPrinter(stream: Writable & { isTTY?: boolean }): (event: WorkflowEvent) => void {
  const live = stream.isTTY === true;
  const running = new Set<string>();
  const maps = new Map<string, string>();
  let cost = "";
  let statusShown = false;
  const clearStatus = () => {
    if (statusShown) stream.write("\r\x1b[2K");
    statusShown = false;
  };
  const drawStatus = () => {
    if (!live) return;
    const parts = [`${running.size} running`, ...maps.values(), cost].filter((part) => part !== "");
    stream.write(`\r\x1b[2K${parts.join(" · ")}`);
    statusShown = true;
  };
  const line = (text: string) => {
    clearStatus();
    stream.write(`${text}\n`);
  };
  return (event) => {
    const text = describe(event);
    switch (event.type) {
      case "step-started":
        running.add(event.key);
        if (!live) line(text!);
        break;
      case "step-finished":
      case "step-skipped":
      case "step-failed":
      case "step-waiting":
        running.delete(event.key);
        line(text!);
        break;
      case "map-progress":
        maps.set(event.key, `${event.id} ${event.done}/${event.total}${event.failed > 0 ? ` (${event.failed} failed)` : ""}`);
        if (!live && (event.done + event.failed === event.total || event.done + event.failed === 0)) line(text!);
        break;
      case "cost":
        cost = `${formatYuan(event.spentYuan)}${event.maxYuan === undefined ? "" : ` of ${formatYuan(event.maxYuan)}`}${event.unpriced > 0 ? ` + ${event.unpriced} unpriced` : ""}`;
        break;
      default:
        if (text !== undefined) line(text);
    }
    if (event.type === "run-finished") clearStatus();
    else drawStatus();
  };
}

/** One line for an event; undefined for events only the status line shows. */
export function describe(event: WorkflowEvent): string | undefined {
  switch (event.type) {
    case "run-started":
      return `${event.resumed ? "Resuming" : "Running"} ${event.steps} step(s) in ${event.runDir}`;
    case "step-started":
      return `… ${event.key} (${event.kind})`;
    case "step-finished":
      return event.replayed
        ? `✓ ${event.key} (from the journal)`
        : `✓ ${event.key} ${(event.durationMs / 1000).toFixed(1)}s${event.costYuan > 0 ? ` ${formatYuan(event.costYuan)}` : ""}`;
    case "step-skipped":
      return `- ${event.key} skipped${event.replayed ? " (from the journal)" : " (if: was false)"}`;
    case "step-failed":
      return `✗ ${event.key}: ${event.error.message} [${event.error.code}]`;
    case "step-waiting":
      return `? ${event.key} waits for a decision: ${event.prompt}`;
    case "step-retry":
      return `↻ ${event.key}: attempt ${event.attempt} failed (${event.errorCode}); trying again`;
    case "step-fallback":
      return `↪ ${event.key}: ${event.message}`;
    case "map-progress":
      return `  ${event.key}: ${event.done}/${event.total} done${event.failed > 0 ? `, ${event.failed} failed` : ""}`;
    case "warning":
      return `! ${event.message}`;
    case "cost":
      return undefined;
    case "run-finished":
      return undefined;
  }
}
