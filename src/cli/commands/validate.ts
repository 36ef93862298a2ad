import { loadWorkflow } from "../../workflow/load/load-workflow.js";
import { startWorkflowMcp } from "../../workflow/mcp/start-workflow-mcp.js";
import { WorkflowError } from "../../workflow/workflow-error.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs } from "../parse-args.js";
import { readRunFlags, RUN_FLAGS } from "../run-flags.js";
import { workflowPath } from "../workflow-path.js";

// The money settings `run` takes: a budgeted file whose models have no price is refused unless priced or allowed.
const FLAGS = {
  budget: { ...RUN_FLAGS.budget, help: "Check as for svc-flow run --budget: a budgeted run's models need prices" },
  prices: RUN_FLAGS.prices,
  "allow-unpriced": { ...RUN_FLAGS["allow-unpriced"], help: "Check as for svc-flow run --allow-unpriced" },
} as const satisfies FlagSpecs;

// Problems of the file or of what it names (an MCP server that does not start, a variable it reads that is not set).
const FILE_PROBLEMS = new Set(["invalid_workflow", "mcp_server_failed", "missing_env", "unknown_tool"]);

/** `svc-flow validate FILE... [--budget YUAN] [--prices FILE] [--allow-unpriced]`: checks workflow files without calling any model (MCP servers are started, listed and stopped); errors name file, line and path. */
export const validateCommand: Command = {
  usage: "svc-flow validate FILE... [--budget YUAN] [--prices FILE] [--allow-unpriced]",
  flags: FLAGS,
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals.length === 0) throw new UsageError("Name at least one workflow file.");
    const pricing = await readRunFlags(values, context.cwd, context.signal);
    let failed = false;
    for (const file of positionals) {
      try {
        const workflow = await loadWorkflow(workflowPath(context.cwd, file), {
          ...pricing,
          signal: context.signal,
          cwd: context.cwd,
        });
        const servers = await startWorkflowMcp(workflow, { env: context.env, signal: context.signal });
        const tools = servers?.tools().length;
        await servers?.close();
        const count = countSteps(workflow.definition.steps);
        const mcp =
          tools === undefined ? "" : `, ${tools} MCP tool${tools === 1 ? "" : "s"} from ${servers!.names.join(", ")}`;
        context.stdout.write(`${file}: ok (${workflow.name}, ${count} step${count === 1 ? "" : "s"}${mcp})\n`);
      } catch (error) {
        if (
          !(error instanceof WorkflowError) &&
          !(error instanceof Error && "code" in error && FILE_PROBLEMS.has(String(error.code)))
        )
          throw error;
        failed = true;
        context.stderr.write(`${error.message}\n`);
      }
    }
    return failed ? 2 : 0;
  },
};

function countSteps(steps: readonly object[]): number {
  return steps.reduce<number>((total, step) => {
    const children = "steps" in step ? (step.steps as object[]) : "parallel" in step ? (step.parallel as object[]) : [];
    return total + 1 + countSteps(children);
  }, 0);
}
