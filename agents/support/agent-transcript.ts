import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CostSummary } from "../../src/cost/summarize-entries.js";
import { redactSecrets } from "../../src/errors.js";
import type { AgentEvent } from "./agent-events.js";

const RESULT_PREVIEW_CHARS = 2000;

/**
 * Keeps the record of one agent run in a folder: `transcript.jsonl` gets each event as it happens
 * (one JSON line, written in order), and `finish` adds `transcript.md` for people and `cost.json`.
 */
export class AgentTranscript {
  /** The folder the files are written to. */
  readonly dir: string;
  readonly #events: Array<{ time: string; event: AgentEvent }> = [];
  #writes: Promise<void>;
  #failure: unknown;

  constructor(dir: string) {
    this.dir = dir;
    this.#writes = mkdir(dir, { recursive: true }).then(() => writeFile(path.join(dir, "transcript.jsonl"), ""));
  }

  /** Records an event; lines reach the file in the order recorded. */
  record(event: AgentEvent): void {
    const time = new Date().toISOString();
    this.#events.push({ time, event });
    const line = `${redactSecrets(JSON.stringify({ time, ...event }))}\n`;
    this.#writes = this.#writes
      .then(() => appendFile(path.join(this.dir, "transcript.jsonl"), line))
      .catch((error: unknown) => {
        this.#failure ??= error;
      });
  }

  /** Waits for the event lines, then writes `transcript.md` and `cost.json`; throws if any write failed. */
  async finish(cost: CostSummary): Promise<void> {
    await this.#writes;
    if (this.#failure !== undefined) throw this.#failure;
    await writeFile(path.join(this.dir, "cost.json"), `${JSON.stringify(cost, null, 2)}\n`);
    await writeFile(path.join(this.dir, "transcript.md"), redactSecrets(renderMarkdown(this.#events)));
  }
}

function renderMarkdown(events: ReadonlyArray<{ time: string; event: AgentEvent }>): string {
  const lines: string[] = [];
  for (const { time, event } of events) {
    switch (event.type) {
      case "start":
        lines.push(
          `# Agent ${event.agent}`,
          "",
          `- model: ${event.model}`,
          `- step limit: ${event.maxSteps}`,
          `- workspace: ${event.workspace}`,
          `- started: ${time}`,
          "",
          "## Task",
          "",
          event.task,
          "",
        );
        break;
      case "model":
        // A turn without tool calls is the answer, written under its own heading below.
        if (event.toolCalls.length === 0) break;
        lines.push(`## Step ${event.step}`, "");
        if (event.text.trim() !== "") lines.push(event.text.trim(), "");
        break;
      case "tool-call":
        lines.push(`- **${event.name}** \`${JSON.stringify(event.arguments)}\``);
        break;
      case "tool-result":
        lines.push(
          `  - ${event.failed ? "failed" : "result"} (${event.durationMs} ms):`,
          "",
          fence(preview(event.result), "    "),
          "",
        );
        break;
      case "approval": {
        const answer = event.approved ? "approved" : "rejected";
        const by = event.by === undefined ? "" : ` by ${event.by}`;
        lines.push(`  - ${answer}${by}${event.note === undefined ? "" : `: ${event.note}`}`);
        break;
      }
      case "answer":
        lines.push("## Answer", "", event.text, "");
        if (event.structuredResponse !== undefined)
          lines.push("```json", JSON.stringify(event.structuredResponse, null, 2), "```", "");
        break;
      case "stopped":
        lines.push("## Stopped", "", event.message, "");
        break;
      case "warning":
        lines.push(`> warning (${event.code}): ${event.message}`, "");
        break;
      case "failed":
        lines.push("## Failed", "", `${event.message} [${event.code}]`, "");
        break;
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function preview(text: string): string {
  return text.length <= RESULT_PREVIEW_CHARS
    ? text
    : `${text.slice(0, RESULT_PREVIEW_CHARS)}\n[... ${text.length - RESULT_PREVIEW_CHARS} more characters]`;
}

// A result may itself contain ``` lines; a longer fence keeps them inside the block.
function fence(text: string, indent: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = "`".repeat(longest + 1);
  return [marks, ...text.split("\n"), marks].map((line) => `${indent}${line}`).join("\n");
}
