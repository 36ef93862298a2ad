import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import type { PendingToolCall, ToolApprover, ToolDecision } from "../../agents/support/agent-journal.js";

const SHOWN_CHARS = 400;

/**
 * Asks a person on a terminal about each tool call that needs approval: `Allow write_file {...}? [y/N]`.
 * `y` or `yes` approves; anything else rejects, and words after the `n` (`n use notes/ instead`) are
 * the note the model gets. Calls made at once are asked one after another.
 */
export function terminalApprover(input: Readable, output: Writable, by?: string): ToolApprover {
  let previous: Promise<unknown> = Promise.resolve();
  return (call, signal) => {
    const asked = previous.then(() => ask(input, output, call, signal, by));
    previous = asked.catch(() => undefined);
    return asked;
  };
}

async function ask(
  input: Readable,
  output: Writable,
  call: PendingToolCall,
  signal: AbortSignal | undefined,
  by: string | undefined,
): Promise<ToolDecision> {
  const shown = JSON.stringify(call.arguments);
  const cut = shown.length > SHOWN_CHARS ? `${shown.slice(0, SHOWN_CHARS)}…` : shown;
  const lines = createInterface({ input, output, terminal: false });
  try {
    const reply = await lines.question(`Allow ${call.name} ${cut}? [y/N] `, signal === undefined ? {} : { signal });
    const answer = reply.trim();
    const approved = /^y(es)?$/i.test(answer);
    const note = approved ? "" : answer.replace(/^no?\b[\s,:;-]*/i, "").trim();
    return { approved, ...(note === "" ? {} : { note }), ...(by === undefined ? {} : { by }) };
  } finally {
    lines.close();
  }
}
