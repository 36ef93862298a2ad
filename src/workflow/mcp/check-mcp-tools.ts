import path from "node:path";
import { prepareSchema } from "../../chat/prepare-schema.js";
import { collectReferences, type ValuePath } from "../expression/index.js";
import type { Workflow } from "../load/load-workflow.js";
import { parseWorkflowYaml } from "../load/parse-workflow-yaml.js";
import { walkSteps } from "../load/walk-steps.js";
import { WorkflowError } from "../workflow-error.js";
import type { McpServers } from "./mcp-servers.js";

/**
 * Checks a workflow's `server/tool` names against what its running MCP servers list, and each tool
 * step's literal arguments against the tool's input schema; throws a WorkflowError naming file,
 * line and path of every problem. Arguments with `${{ }}` are checked by the server when called.
 */
export function checkMcpTools(workflow: Workflow, servers: McpServers): void {
  const issues: Array<{ path: ValuePath; message: string }> = [];
  const check = (reference: string, at: ValuePath) => {
    if (!reference.includes("/")) return;
    if (servers.find(reference).length > 0) return;
    const server = reference.slice(0, reference.indexOf("/"));
    const listed = servers
      .tools()
      .filter((tool) => tool.server === server)
      .map((tool) => tool.name);
    issues.push({
      path: at,
      message: `The MCP server "${server}" has no tool "${reference.slice(server.length + 1)}". Its tools: ${listed.join(", ") || "none"}.`,
    });
  };
  walkSteps(workflow.definition.steps, ({ step, path: at }) => {
    if (!("uses" in step)) return;
    if (step.uses === "chat" || step.uses === "agent")
      step.with.tools?.forEach((name, index) => check(name, [...at, "with", "tools", index]));
    if (step.uses !== "tool") return;
    check(step.with.tool, [...at, "with", "tool"]);
    const [tool] = step.with.tool.includes("/") ? servers.find(step.with.tool) : [];
    const input = step.with.input ?? {};
    if (tool === undefined || typeof input === "string" || collectReferences(input).length > 0) return;
    const checked = prepareSchema(tool.inputSchema).validate(input);
    if (!checked.ok)
      issues.push({
        path: [...at, "with", "input"],
        message: `The arguments do not fit ${step.with.tool}'s input schema: ${checked.problems.join("; ")}.`,
      });
  });
  if (issues.length === 0) return;
  const shown =
    workflow.file === "<inline>" ? workflow.file : path.relative(process.cwd(), workflow.file) || workflow.file;
  const { locate } = parseWorkflowYaml(workflow.text, shown);
  throw new WorkflowError(
    issues.map((issue) => ({ file: shown, ...locate(issue.path), path: issue.path, message: issue.message })),
  );
}
