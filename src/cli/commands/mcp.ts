import { resolve } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { UsageError, type Command, type FlagSpecs } from "../command.js";
import { parseCommandArgs } from "../parse-args.js";
import { checkExistingFolderFlag } from "../path-flags.js";
import { createWorkflowMcpServer } from "../workflow-mcp-server.js";

const FLAGS = {
  workflows: { type: "string", value: "DIR", help: "Folder whose workflow files become tools; default: ./workflows" },
  "allow-dir": {
    type: "string",
    multiple: true,
    value: "DIR",
    help: "A folder whose files calls may pass as media or items inputs (repeatable); default: the workflows folder and .",
  },
} as const satisfies FlagSpecs;

/** `svc-flow mcp serve [--workflows DIR]`: serves each workflow in DIR as an MCP tool over stdio. */
export const mcpCommand: Command = {
  usage: "svc-flow mcp serve [options]",
  flags: FLAGS,
  notes: [
    "Speaks MCP on stdin/stdout (for an MCP client to start); progress and notices go to stderr.",
    "Each call runs its workflow into runs/<time>-<name> under the current folder.",
  ],
  async run(context) {
    const { values, positionals } = parseCommandArgs(context.argv, FLAGS);
    if (positionals[0] !== "serve" || positionals.length !== 1)
      throw new UsageError("The mcp command has one subcommand: svc-flow mcp serve [--workflows DIR].");
    const workflowsDir = resolve(context.cwd, values.workflows ?? "workflows");
    await checkExistingFolderFlag("--workflows", workflowsDir);
    const allowed = values["allow-dir"] ?? [];
    const { server, workflows } = await createWorkflowMcpServer({
      workflowsDir,
      cwd: context.cwd,
      readableDirs: [workflowsDir, context.cwd, ...allowed.map((dir) => resolve(context.cwd, dir))],
      // stdout carries the protocol: every notice goes to stderr.
      run: { env: context.env, notice: (line) => context.stderr.write(`${line}\n`) },
      warn: (line) => context.stderr.write(`${line}\n`),
    });
    context.stderr.write(
      `svc-flow mcp serve: ${workflows.size} workflow tool(s): ${[...workflows.keys()].join(", ")}\n`,
    );
    const closed = new Promise<void>((done) => {
      server.onclose = () => done();
    });
    await server.connect(new StdioServerTransport());
    const stop = () => void server.close();
    context.signal.addEventListener("abort", stop, { once: true });
    process.stdin.once("end", stop);
    await closed;
    return 0;
  },
};
