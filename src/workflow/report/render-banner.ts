import type { RunSummary } from "../run/run-summary.js";
import { htmlText } from "./escape-html.js";
import { shellWord } from "../shell-word.js";

// The run's error message ends with what to do next ("Finished steps are kept; ... svc-flow resume DIR");
// the banner says that once, as its own line, and the cause once, above it.
const NEXT_STEP = /\s*Finished steps are kept;\s*/;
// The headline already says how the run stopped; the message need not repeat it.
const REPEATED_HEADLINE = /^(Stopped by the budget|Interrupted)(\s*\([^)]*\))?:\s*/;

/** The message split into its cause and its next step (with the command to run), each said once. */
export function splitRunError(message: string): { cause: string; spent?: string; next?: string; command?: string } {
  const [cause = "", next] = message.split(NEXT_STEP, 2);
  const spent = REPEATED_HEADLINE.exec(cause)?.[2]?.trim();
  const trimmed = cause.replace(REPEATED_HEADLINE, "").trim();
  const said = { cause: trimmed, ...(spent === undefined ? {} : { spent }) };
  if (next === undefined) return said;
  const command = /svc-flow (?:resume|approve|rerun) \S+(?: --[a-z-]+(?: [A-Z]+)?)*/.exec(next)?.[0];
  return { ...said, next: next.trim(), ...(command === undefined ? {} : { command }) };
}

/** The banner under the title: how the run ended, why (once), and the one command that goes on. */
export function renderBanner(summary: RunSummary): string {
  if (summary.status === "done") return `<div class="banner done"><strong>Done.</strong> Every step finished.</div>`;
  if (summary.status === "waiting")
    return `<div class="banner waiting"><strong>Waiting for a decision.</strong> Everything that did not need one is done; the questions are under Approvals.</div>`;
  const headline =
    summary.status === "failed"
      ? "Failed"
      : summary.reason === "budget"
        ? "Stopped by the budget"
        : summary.reason === "interrupted"
          ? "Interrupted"
          : "Stopped";
  const fallback = `svc-flow resume ${shellWord(summary.runDir)}${summary.reason === "budget" ? " --budget YUAN" : ""}`;
  const split = summary.error === undefined ? { cause: "" } : splitRunError(summary.error.message);
  const code = summary.error === undefined ? "" : `<code>${htmlText(summary.error.code)}</code> `;
  // An interruption was asked for: its "cause" (the signal) tells nothing new.
  const cause =
    summary.reason === "interrupted" || (split.cause === "" && code === "")
      ? ""
      : `<p class="cause">${code}${htmlText(split.cause)}</p>`;
  // The next step in its own words, its command set apart to copy.
  const next =
    split.next !== undefined && split.command !== undefined
      ? (() => {
          const at = split.next.indexOf(split.command);
          const after = split.next.slice(at + split.command.length);
          return `${htmlText(split.next.slice(0, at))}<code class="command">${htmlText(split.command)}</code>${htmlText(after)}`;
        })()
      : `continue with: <code class="command">${htmlText(fallback)}</code>`;
  const spent = "spent" in split && split.spent !== undefined ? ` ${split.spent}` : "";
  return `<div class="banner ${summary.status}"><strong>${htmlText(headline + spent)}.</strong>${cause}<p>Finished steps are kept; ${next}</p></div>`;
}
