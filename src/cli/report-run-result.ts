import path from "node:path";
import { formatYuan } from "../cost/format-summary-table.js";
import { REPORT_FILE } from "../workflow/report/write-report-file.js";
import type { RecordedApproval } from "../workflow/approval/record-approval.js";
import type { PossibleDoubleBills } from "../workflow/run/call-intents.js";
import type { RunResult, WaitingApproval } from "../workflow/run/run-options.js";
import { runOutcome } from "../workflow/run/run-outcome.js";
import type { CommandContext } from "./command.js";
import { approveCommand } from "../workflow/approval/approve-command.js";
import { shellWord } from "../workflow/shell-word.js";

/** Prints how a run ended and returns the exit code (see runOutcome): 0 done, 1 stopped, failed or no item succeeded, 2 a bad key or model, 3 waiting for a decision. */
export function reportRunResult(result: RunResult, context: Pick<CommandContext, "stdout" | "stderr" | "cwd">): number {
  const where = path.relative(context.cwd, result.runDir) || ".";
  const unpriced =
    result.cost.unpriced.calls > 0
      ? ` + ${result.cost.unpriced.calls} unpriced call(s) (${result.cost.unpriced.models.join(", ")})`
      : "";
  const cost = `${formatYuan(result.cost.totalYuan)}${unpriced}`;
  const outcome = runOutcome(result);
  const doubles = result.possibleDoubleBills;
  if (doubles !== undefined && doubles.calls.length > 0) context.stderr.write(`${describeDoubleBills(doubles)}\n`);
  if (outcome.kind === "done" || outcome.kind === "done-with-failures") {
    context.stdout.write(
      `${outcome.headline}. Outputs: ${path.join(where, "outputs.json")}. Report: ${path.join(where, REPORT_FILE)}. Cost: ${cost}.\n`,
    );
  } else if (outcome.kind === "waiting") {
    const questions = (result.waiting ?? []).map((waiting) => describeWaiting(waiting, where)).join("\n");
    context.stdout.write(
      `Waiting for a decision. Everything that did not need one is done and journaled.\n${questions}\nReport: ${path.join(where, REPORT_FILE)}. Cost so far: ${cost}.\n`,
    );
  } else if (outcome.kind === "no-item-succeeded") {
    context.stderr.write(
      `Finished, but ${outcome.headline}. Each item's error is in ${path.join(where, "outputs.json")} and ${path.join(where, REPORT_FILE)}. Cost: ${cost}.\n`,
    );
  } else if (outcome.kind === "stopped" && result.reason === "interrupted") {
    // The stop was asked for: no error to explain, only how to go on.
    context.stderr.write(
      `Interrupted; resume with \`svc-flow resume ${shellWord(where)}\`.\nFinished steps are journaled. Report: ${path.join(where, REPORT_FILE)}. Cost so far: ${cost}.\n`,
    );
  } else {
    const message = result.error?.message ?? "";
    const code = `[${result.error?.code ?? "error"}]`;
    // A budget stop's message starts by saying so.
    const said = message.startsWith(outcome.headline)
      ? `${message} ${code}`
      : `${outcome.headline} ${code}: ${message}`;
    context.stderr.write(
      `${said}\nRun directory: ${where}. Report: ${path.join(where, REPORT_FILE)}. Cost so far: ${cost}.\n`,
    );
  }
  return outcome.exitCode;
}

/** The warning about calls a gateway ignoring Idempotency-Key may have billed twice (cost.json's possibleDoubleBills). */
export function describeDoubleBills(doubles: PossibleDoubleBills): string {
  return `${doubles.calls.length} call(s), ${formatYuan(doubles.totalYuan)}, may have been billed twice: each was sent again after its answer was lost, and the gateway did not confirm it honours Idempotency-Key. They are counted once in the cost; cost.json lists them under possibleDoubleBills. Check the gateway's bill.`;
}

const SHOWN_CHARS = 600;

/** The question, what it shows, and the exact command that answers it (`flags` added to it: a distributed run's `--redis URL`). */
export function describeWaiting(waiting: WaitingApproval, runDir: string, flags = ""): string {
  const lines = [`  ${waiting.key}: ${waiting.prompt}`];
  if (waiting.show !== undefined) {
    const shown = typeof waiting.show === "string" ? waiting.show : JSON.stringify(waiting.show, null, 2);
    const cut = shown.length > SHOWN_CHARS ? `${shown.slice(0, SHOWN_CHARS)}… (the report shows it whole)` : shown;
    lines.push(...cut.split("\n").map((line, index) => `    ${index === 0 ? "Shows: " : "       "}${line}`));
  }
  if (waiting.input !== undefined) lines.push(`    Reply with --input JSON matching: ${JSON.stringify(waiting.input)}`);
  if (waiting.timeoutAt !== undefined) lines.push(`    Open until ${waiting.timeoutAt}.`);
  // A tool call is answered by its agent step's name (one call of a step waits at a time).
  const command = `${approveCommand(runDir, waiting.toolCall?.step ?? waiting.key)}${flags}`;
  lines.push(`    Approve: ${command} [--note TEXT]`, `    Reject:  ${command} --reject [--note TEXT]`);
  return lines.join("\n");
}

/** What `svc-flow approve` says it recorded; a tool call is named with what it was going to do, so the answer is seen against it. */
export function describeDecision(decision: RecordedApproval): string {
  const call = decision.request.toolCall;
  const what =
    call === undefined ? decision.key : `${call.step}'s call of ${call.name} ${JSON.stringify(call.arguments)}`;
  return `${decision.approved ? "Approved" : "Rejected"} ${what} (by ${decision.by})`;
}
