import type { AgentEvent } from "./agent-events.js";

/** How to print: `tty` adds colour and symbols; `plain` is one greppable line per event. */
export type EventStyle = "tty" | "plain";

const COLOURS = {
  dim: "\u001b[2m",
  red: "\u001b[31m",
  green: "\u001b[32m",
  yellow: "\u001b[33m",
  cyan: "\u001b[36m",
  bold: "\u001b[1m",
  reset: "\u001b[0m",
};

/** One line (or a few) for an event of a run as it happens; undefined for events not shown live.
 * `colour` (default: on for `tty`) is off on a terminal with NO_COLOR. */
export function formatAgentEvent(
  event: AgentEvent,
  style: EventStyle,
  width = 100,
  colour = style === "tty",
): string | undefined {
  const paint = (name: keyof typeof COLOURS, text: string) =>
    colour ? `${COLOURS[name]}${text}${COLOURS.reset}` : text;
  const room = Math.max(30, width - 24);
  switch (event.type) {
    case "start":
      return style === "tty"
        ? `${paint("bold", `▶ ${event.agent}`)} ${paint("dim", `on ${event.model}, up to ${event.maxSteps} steps, workspace ${event.workspace}`)}`
        : `agent ${event.agent} model ${event.model} max-steps ${event.maxSteps} workspace ${event.workspace}`;
    case "model": {
      if (event.toolCalls.length === 0) return undefined;
      const thought = oneLine(event.text);
      if (thought === "") return undefined;
      return style === "tty"
        ? `${paint("dim", `step ${event.step}`)}  ${clip(thought, room)}`
        : `step ${event.step} says ${clip(thought, room)}`;
    }
    case "tool-call": {
      const call = `${event.name} ${clip(JSON.stringify(event.arguments), room)}`;
      return style === "tty"
        ? `${paint("dim", `step ${event.step}`)}  ${paint("cyan", "→")} ${call}`
        : `step ${event.step} call ${call}`;
    }
    case "tool-result": {
      const text = clip(oneLine(event.result), room);
      if (style === "plain")
        return `step ${event.step} ${event.failed ? "failed" : "result"} ${event.name} ${event.durationMs}ms: ${text}`;
      const mark = event.failed ? paint("red", "✗") : paint("green", "✓");
      return `        ${mark} ${event.name} ${paint("dim", `${event.durationMs} ms`)}  ${event.failed ? paint("red", text) : text}`;
    }
    case "approval": {
      const answer = `${event.approved ? "approved" : "rejected"}${event.note === undefined ? "" : `: ${event.note}`}`;
      return style === "tty"
        ? `        ${event.approved ? paint("green", "✓") : paint("red", "✗")} ${event.name} ${answer}`
        : `step ${event.step} ${answer} ${event.name}`;
    }
    case "answer":
      return style === "tty"
        ? paint("green", `✔ answered after ${event.step} step${event.step === 1 ? "" : "s"}`)
        : `answered after ${event.step} steps`;
    case "stopped":
      return style === "tty" ? paint("red", `■ ${event.message}`) : `stopped: ${event.message}`;
    case "warning":
      return style === "tty" ? paint("yellow", `! ${event.message}`) : `warning [${event.code}]: ${event.message}`;
    case "failed":
      return style === "tty"
        ? paint("red", `✗ ${event.message} [${event.code}]`)
        : `failed [${event.code}]: ${event.message}`;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string, room: number): string {
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`;
}
