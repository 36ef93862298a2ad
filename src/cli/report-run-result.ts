import path from "node:path";
import { formatYuan } from "../cost/format-summary-table.js";
import { REPORT_FILE } from "../workflow/report/write-report-file.js";
import type { RunResult } from "../workflow/run/run-options.js";
import type { CommandContext } from "./command.js";

/** Prints how a run ended and returns the exit code: 0 done, 1 stopped or failed (both resumable). */
export function reportRunResult(result: RunResult, context: Pick<CommandContext, "stdout" | "stderr" | "cwd">): number {
  const where = path.relative(context.cwd, result.runDir) || ".";
  const unpriced = result.cost.unpriced.calls > 0 ? ` + ${result.cost.unpriced.calls} unpriced call(s) (${result.cost.unpriced.models.join(", ")})` : "";
  const cost = `${formatYuan(result.cost.totalYuan)}${unpriced}`;
  if (result.status === "done") {
    context.stdout.write(`Done. Outputs: ${path.join(where, "outputs.json")}. Report: ${path.join(where, REPORT_FILE)}. Cost: ${cost}.\n`);
    return 0;
  }
  const what = result.status === "stopped" ? (result.reason === "budget" ? "Stopped by the budget" : "Stopped") : "Failed";
  context.stderr.write(`${what} (${result.error?.code ?? "error"}). ${result.error?.message ?? ""}\nRun directory: ${where}. Report: ${path.join(where, REPORT_FILE)}. Cost so far: ${cost}.\n`);
  return 1;
}
