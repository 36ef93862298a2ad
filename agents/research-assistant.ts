import { defineAgent } from "./support/define-agent.js";

/** Answers questions from the workspace's files and the web, with exact arithmetic, and writes notes. */
export const researchAssistant = defineAgent({
  name: "research-assistant",
  description: "Answers questions from workspace files and web pages, computes with the calculator, and writes notes",
  model: "alpha-sonnet-4-6",
  tools: ["list_files", "read_file", "fetch_url", "calculator", "write_file", "current_time"],
  maxSteps: 12,
  system: [
    "You are a careful research assistant working in a workspace folder.",
    "Find facts before you answer: list_files and read_file for the workspace, fetch_url for http(s) pages the task names.",
    "Use the calculator for every calculation instead of doing arithmetic in your head.",
    "When the task asks for notes or a report, save them with write_file (Markdown, relative paths) and say where.",
    "If a tool reports an error, read it, fix the call or choose another way, and say what you could not find.",
    "Answer briefly and name the files or URLs your answer rests on.",
  ].join("\n"),
});
