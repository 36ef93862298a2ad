import type { JournalRecord } from "../run/journal-records.js";
import { htmlText } from "./escape-html.js";
import { formatTime } from "./format-report-values.js";
import { renderOutputValue, type ValueContext } from "./render-output-value.js";
import { approveCommand } from "../approval/approve-command.js";

/** The report's approvals section: each question, what it showed, and the answer (or that it is open, with `flags` added to its command). Empty without approval steps. */
export function renderApprovals(
  journal: readonly JournalRecord[],
  runDir: string,
  context: ValueContext,
  flags = "",
): string {
  const decisions = new Map(
    journal.flatMap((record) => (record.type === "approval-decided" ? [[record.key, record] as const] : [])),
  );
  const asked = journal.flatMap((record) => (record.type === "approval-requested" ? [record] : []));
  if (asked.length === 0) return "";
  const items = asked.map((request) => {
    const decision = decisions.get(request.key);
    const shown =
      request.show === undefined ? "" : `<div class="approval-show">${renderOutputValue(request.show, context)}</div>`;
    const answer =
      decision === undefined
        ? `<p><strong>Waiting.</strong> Answer with <code class="command">${htmlText(`${approveCommand(runDir, request.toolCall?.step ?? request.key)}${flags === "" ? "" : ` ${flags}`}`)}</code> (add --reject to reject).</p>`
        : `<p><strong>${decision.approved ? "Approved" : "Rejected"}</strong> by ${htmlText(decision.by)} at ${htmlText(formatTime(decision.at))}${
            decision.note === undefined ? "" : `: ${htmlText(decision.note)}`
          }</p>${decision.input === undefined ? "" : renderOutputValue(decision.input, context)}`;
    return `<section class="approval"><h3>${htmlText(request.key)}</h3><p>${htmlText(request.prompt)}</p>${shown}${answer}</section>`;
  });
  return `<h2>Approvals</h2>\n${items.join("\n")}`;
}
