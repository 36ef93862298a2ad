import type { CommandEntry } from "../command.js";

// Each command's module (and LangChain, the workflow engine, ... behind it) is imported only when
// the command runs: `svc-flow --help` and a light command no longer load every other command's.
/** Every CLI command, in the order `svc-flow --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "run",
    summary: "Run a workflow file; writes a run directory (journal, artifacts, outputs, cost)",
    load: async () => (await import("./run.js")).runCommand,
  },
  {
    name: "resume",
    summary: "Finish an interrupted or stopped run; journaled steps are not run (or paid) again",
    load: async () => (await import("./resume.js")).resumeCommand,
  },
  {
    name: "rerun",
    summary: "Run a run's (or an edited) workflow again, reusing each step whose inputs did not change",
    load: async () => (await import("./rerun.js")).rerunCommand,
  },
  {
    name: "approve",
    summary: "Answer an approval step a run waits on (exit 3), then resume the run",
    load: async () => (await import("./approve.js")).approveCommand,
  },
  {
    name: "validate",
    summary: "Check workflow files (schema, models, tools, references) without running them",
    load: async () => (await import("./validate.js")).validateCommand,
  },
  {
    name: "estimate",
    summary: "Price a workflow before running it: the most each step can cost, and what is unpriced",
    load: async () => (await import("./estimate.js")).estimateCommand,
  },
  {
    name: "diff",
    summary: "Compare two runs step by step: what changed, cost, line diffs, images side by side",
    load: async () => (await import("./diff.js")).diffCommand,
  },
  {
    name: "schedule",
    summary: "Run workflows on their schedule: (cron) until stopped",
    load: async () => (await import("./schedule.js")).scheduleCommand,
  },
  {
    name: "runs",
    summary: "List recent runs: state, items done/total, cost",
    load: async () => (await import("./runs.js")).runsCommand,
  },
  {
    name: "models",
    summary: "List the models your key may call, with their capabilities, rules and prices",
    load: async () => (await import("./models.js")).modelsCommand,
  },
  {
    name: "chat",
    summary: "One chat turn, streamed to stdout, with images, audio or video; image models write a PNG",
    load: async () => (await import("./chat.js")).chatCommand,
  },
  {
    name: "agent",
    summary: "Run a ready tool-using agent on a task (svc-flow agent --help lists the agents)",
    load: async () => (await import("./agent.js")).agentCommand,
  },
  {
    name: "music",
    summary: "Make music from a prompt: submit (¥2 for two clips), wait for the clips, download both",
    load: async () => (await import("./music.js")).musicCommand,
  },
  {
    name: "gateway",
    summary: "Serve the local gateway (simulated models) on 127.0.0.1",
    load: async () => (await import("./gateway.js")).gatewayCommand,
  },
  {
    name: "worker",
    summary: "Run the items of distributed runs (svc-flow run --redis) from a shared Redis queue",
    load: async () => (await import("./worker.js")).workerCommand,
  },
  {
    name: "mcp",
    summary: "Serve the workflows of a folder as MCP tools over stdio (svc-flow mcp serve)",
    load: async () => (await import("./mcp.js")).mcpCommand,
  },
];
