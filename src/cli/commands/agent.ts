import { mkdir } from "node:fs/promises";
import { runStamp } from "../run-io.js";
import path, { dirname, resolve } from "node:path";
import {
  AgentTranscript,
  createAgentByName,
  formatAgentEvent,
  listAgentDefinitions,
  listAgentNames,
  type AgentEvent,
  type AgentOutcome,
} from "../../../agents/index.js";
import { CostLedger } from "../../cost/cost-ledger.js";
import { formatYuan } from "../../cost/format-summary-table.js";
import { SvcFlowError, redactSecrets } from "../../errors.js";
import { connectGateway } from "../compose-run.js";
import { callableModels } from "../callable-models.js";
import { getModel } from "../../catalog/models.js";
import { missingTaskFiles } from "../task-files.js";
import { UsageError, type Command, type CommandContext, type FlagSpecs } from "../command.js";
import { formatColumns } from "../format-command-help.js";
import { parseCommandArgs, wholeNumberFlag } from "../parse-args.js";
import { readMcpFile } from "../read-mcp-file.js";
import { readRunFlags } from "../run-flags.js";
import { terminalApprover } from "../terminal-approver.js";
import { colourOn } from "../terminal-style.js";

const FLAGS = {
  workspace: {
    type: "string",
    value: "DIR",
    help: "Folder the file tools work in; default: the --out folder's workspace/",
  },
  model: { type: "string", value: "M", help: "The model the agent thinks with; default: the agent's own" },
  budget: { type: "string", value: "YUAN", help: "Stop before spending more than this" },
  "max-steps": { type: "string", value: "N", help: "Most model turns before it must answer; default: the agent's own" },
  out: { type: "string", value: "DIR", help: "Where the transcript and cost go; default: runs/<time>-agent-NAME" },
  prices: {
    type: "string",
    value: "FILE",
    help: "Prices (YAML or JSON, in yuan) for models without a published price",
  },
  "allow-unpriced": { type: "boolean", help: "Let a budgeted agent call models without a price" },
  "allow-private-network": {
    type: "boolean",
    help: "Let fetch_url reach localhost and private addresses (10.x, 192.168.x)",
  },
  "fetch-max-bytes": { type: "string", value: "N", help: "Most bytes fetch_url reads from a page; default: 262144" },
  "fetch-timeout-ms": { type: "string", value: "N", help: "How long fetch_url waits for a page; default: 15000" },
  json: { type: "boolean", help: "Print the outcome as JSON instead of the live view" },
  approve: {
    type: "string",
    value: "TOOLS",
    help: "Tools (comma-separated) whose calls ask you y/n first; a no, with words after it, goes back to the model",
  },
  mcp: {
    type: "string",
    value: "FILE",
    help: "MCP servers (a workflow's mcp: section, YAML or JSON) whose tools the agent may call",
  },
} as const satisfies FlagSpecs;

/** `svc-flow agent NAME "TASK"`: runs a ready agent, streaming its steps, and writes its transcript and cost. */
export const agentCommand: Command = {
  usage: 'svc-flow agent NAME "TASK" [options]',
  flags: FLAGS,
  get notes() {
    return ["Agents:", ...formatColumns(listAgentDefinitions().map((agent) => [agent.name, agent.description]))];
  },
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    const [name, ...words] = positionals;
    if (name === undefined) throw new UsageError(`Name an agent: ${listAgentNames().join(", ")}.`);
    if (!listAgentNames().includes(name))
      throw new UsageError(`Unknown agent "${name}". Agents: ${listAgentNames().join(", ")}.`);
    const task = words.join(" ").trim();
    if (task === "")
      throw new UsageError(`Give the task after the agent's name, in quotes: svc-flow agent ${name} "..."`);
    const maxSteps = wholeNumberFlag("max-steps", values["max-steps"]);
    const toolOptions = fetchOptions(values);
    const flags = await readRunFlags(values, context.cwd, context.signal);
    // A wrong key, a half-set SVC_BASE_URL/SVC_API_KEY or an unknown --model is bad input: refused (exit 2)
    // before the run folder is made.
    const models = await callableModels(context.env, context.signal);
    if (values.model !== undefined && !models?.includes(values.model)) getModel(values.model);
    const runDir = resolve(context.cwd, values.out ?? `runs/${runStamp()}-agent-${name}`);
    // What an agent writes stays in its run directory unless a workspace is named.
    const workspace = flags.workspace ?? path.join(runDir, "workspace");
    const missing = await missingTaskFiles(task, workspace);
    if (missing.length > 0) {
      throw new UsageError(
        `The task names ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not in the workspace (${workspace}). ` +
          "Pass --workspace with the folder that holds it, e.g. --workspace workflows/data.",
      );
    }
    await mkdir(workspace, { recursive: true });
    const ledger = new CostLedger({
      tags: { run: `agent-${name}` },
      ...(flags.budgetYuan === undefined ? {} : { maxYuan: flags.budgetYuan }),
      ...(flags.prices === undefined ? {} : { prices: flags.prices }),
      ...(flags.allowUnpriced === true ? { allowUnpriced: true } : {}),
    });
    const mcpFile = values.mcp === undefined ? undefined : resolve(context.cwd, values.mcp);
    const mcp = mcpFile === undefined ? undefined : await readMcpFile(mcpFile);
    const json = values.json === true;
    const approve = (values.approve ?? "")
      .split(",")
      .map((tool) => tool.trim())
      .filter((tool) => tool !== "");
    const terminal = context.stdin?.isTTY === true ? context.stdin : undefined;
    if (approve.length > 0 && terminal === undefined)
      throw new UsageError(
        "--approve asks y/n on a terminal, and stdin is not one. Run it in a terminal, or run the agent as a workflow step with approve: (svc-flow approve answers).",
      );
    const connection = await connectGateway({
      env: context.env,
      stateDir: runDir,
      notice: (line) => context.stderr.write(`${line}\n`),
    });
    try {
      const transcript = new AgentTranscript(runDir);
      const show = json ? undefined : liveView(context);
      const agent = createAgentByName(name, {
        workspace,
        ledger,
        gateway: { apiKey: connection.apiKey, baseURL: connection.baseURL },
        ...(values.model === undefined ? {} : { model: values.model }),
        ...(maxSteps === undefined ? {} : { maxSteps }),
        toolOptions,
        ...(approve.length === 0 ? {} : { approve }),
        // On a terminal, a call that needs approval (--approve, or the agent's own list) is asked inline.
        ...(terminal === undefined
          ? {}
          : { approver: terminalApprover(terminal, context.stderr, context.env.SVC_FLOW_USER || undefined) }),
        ...(mcp === undefined ? {} : { mcp, mcpBaseDir: dirname(mcpFile!), env: context.env }),
        onEvent: (event) => {
          transcript.record(event);
          show?.(event);
        },
      });
      try {
        const outcome = await agent.run(task, { signal: context.signal });
        await transcript.finish(ledger.summary());
        report(context, outcome, ledger, runDir, json);
        return outcome.status === "answered" ? 0 : 1;
      } catch (error) {
        await transcript.finish(ledger.summary()).catch(() => undefined);
        if (json) context.stdout.write(`${JSON.stringify(failureJson(error, ledger, runDir), null, 2)}\n`);
        else context.stderr.write(`${costLine(ledger)}; transcript in ${runDir}\n`);
        throw error;
      } finally {
        await agent.close();
      }
    } finally {
      await connection.close();
    }
  },
};

function fetchOptions(values: {
  "allow-private-network"?: boolean;
  "fetch-max-bytes"?: string;
  "fetch-timeout-ms"?: string;
}) {
  const fetchMaxBytes = wholeNumberFlag("fetch-max-bytes", values["fetch-max-bytes"]);
  const fetchTimeoutMs = wholeNumberFlag("fetch-timeout-ms", values["fetch-timeout-ms"]);
  return {
    ...(values["allow-private-network"] === true ? { allowPrivateNetwork: true } : {}),
    ...(fetchMaxBytes === undefined ? {} : { fetchMaxBytes }),
    ...(fetchTimeoutMs === undefined ? {} : { fetchTimeoutMs }),
  };
}

function liveView(context: CommandContext): (event: AgentEvent) => void {
  const stderr = context.stderr as CommandContext["stderr"] & { isTTY?: boolean; columns?: number };
  const style = stderr.isTTY === true ? "tty" : "plain";
  const colour = colourOn(stderr, context.env);
  return (event) => {
    // A failure is the command's error, which the entry point prints once with its code and ids.
    if (event.type === "failed") return;
    const line = formatAgentEvent(event, style, stderr.columns ?? 100, colour);
    if (line !== undefined) stderr.write(`${line}\n`);
  };
}

// The answer goes to stdout (so it can be piped); everything about the run goes to stderr.
function report(
  context: CommandContext,
  outcome: AgentOutcome,
  ledger: CostLedger,
  runDir: string,
  json: boolean,
): void {
  if (json) {
    context.stdout.write(`${JSON.stringify({ ...outcome, cost: ledger.summary(), runDir }, null, 2)}\n`);
    return;
  }
  if (outcome.status === "answered") {
    const body =
      outcome.structuredResponse === undefined ? outcome.answer : JSON.stringify(outcome.structuredResponse, null, 2);
    context.stdout.write(`${body}\n`);
  } else {
    context.stderr.write(`svc-flow agent: ${outcome.message}\n`);
  }
  context.stderr.write(`${costLine(ledger)}; transcript in ${runDir}\n`);
}

function costLine(ledger: CostLedger): string {
  const summary = ledger.summary();
  const unpriced = summary.complete ? "" : " + unpriced";
  const budget = summary.budget === undefined ? "" : ` of a ${formatYuan(summary.budget.maxYuan)} budget`;
  return `cost ${formatYuan(summary.totalYuan)}${unpriced}${budget} over ${summary.entries} call${summary.entries === 1 ? "" : "s"}`;
}

function failureJson(error: unknown, ledger: CostLedger, runDir: string) {
  const code = error instanceof SvcFlowError ? error.code : "agent_failed";
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  return { status: "failed", error: { code, message }, cost: ledger.summary(), runDir };
}
