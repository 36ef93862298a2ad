import { listAgentNames } from "../../../agents/ready-agents.js";
import { isToolName, listToolNames } from "../../../tools/tool-names.js";
import { prepareSchema } from "../../chat/prepare-schema.js";
import { didYouMean } from "../../catalog/closest-name.js";
import type { ValuePath } from "../expression/index.js";
import { inputProblem } from "../input-values.js";
import type { LeafStep } from "../schema/step-schemas.js";
import type { MusicWith } from "../schema/with-schemas.js";
import type { WorkflowDefinition } from "../schema/workflow-schema.js";
import { checkMcpExpressions } from "../mcp/resolve-mcp-env.js";
import { jsonSchemaProblems } from "./json-schema-problems.js";
import { stepPlaces, type StepPlace } from "./walk-steps.js";
import type { RawIssue } from "./zod-issues.js";

/** Names the loader checks `agent:` against. */
export interface StepFieldCheckOptions {
  /** Agents that `agent:` may name. Default: the ready agents in agents/. */
  readonly agentNames?: readonly string[];
}

// Which fields each music operation needs.
const MUSIC_NEEDS: Record<NonNullable<MusicWith["operation"]>, ReadonlyArray<keyof MusicWith>> = {
  generate: ["prompt"],
  lyrics: ["prompt"],
  continuation: ["clip"],
  stems: ["clip"],
  concatenation: ["clip"],
};

/** Checks what the schema cannot: unique ids, tool and agent names, music fields, answer schemas, input defaults. */
export function checkStepFields(
  definition: WorkflowDefinition,
  options: StepFieldCheckOptions = {},
  places: readonly StepPlace[] = stepPlaces(definition.steps),
): RawIssue[] {
  const issues: RawIssue[] = [];
  const mcpServers = Object.keys(definition.mcp ?? {});
  const seen = new Map<string, ValuePath>();
  for (const { step, path } of places) {
    const first = seen.get(step.id);
    if (first !== undefined) {
      issues.push({
        path: [...path, "id"],
        message: `The id "${step.id}" is already used by the step at ${first.join(".")}; ids are unique in the file.`,
      });
    } else {
      seen.set(step.id, path);
    }
    if ("uses" in step) checkLeaf(step, [...path, "with"], options, issues, mcpServers);
  }
  if (definition.mcp !== undefined) issues.push(...checkMcpExpressions(definition.mcp));
  for (const [name, spec] of Object.entries(definition.inputs ?? {})) {
    const problem = spec.default === undefined ? undefined : inputProblem(spec, spec.default);
    if (problem !== undefined)
      issues.push({ path: ["inputs", name, "default"], message: `The default does not fit: ${problem}.` });
  }
  return issues;
}

function checkLeaf(
  step: LeafStep,
  path: ValuePath,
  options: StepFieldCheckOptions,
  issues: RawIssue[],
  mcpServers: readonly string[],
): void {
  const tool = (name: string, at: ValuePath) => {
    // server/tool: the server must be in mcp:; its tools are listed (and checked) when it starts.
    if (name.includes("/")) {
      const server = name.slice(0, name.indexOf("/"));
      if (!mcpServers.includes(server)) {
        issues.push({
          path: at,
          message: `"${name}" names the MCP server "${server}", which mcp: does not define. ${mcpServers.length > 0 ? `Servers: ${mcpServers.join(", ")}.` : "Add it under mcp: at the top of the file."}`,
        });
      } else if (name.length === server.length + 1) {
        issues.push({
          path: at,
          message: `"${name}" names no tool: write ${server}/TOOL, or ${server}/* for all its tools.`,
        });
      }
      return;
    }
    if (!isToolName(name))
      issues.push({
        path: at,
        message: `Unknown tool "${name}". ${didYouMean(name, listToolNames())}Tools: ${listToolNames().join(", ")}.`,
      });
  };
  switch (step.uses) {
    case "tool":
      tool(step.with.tool, [...path, "tool"]);
      if (step.with.tool.endsWith("/*"))
        issues.push({
          path: [...path, "tool"],
          message: `A tool step calls one tool; "${step.with.tool}" names them all. Name one, e.g. ${step.with.tool.slice(0, -1)}TOOL.`,
        });
      return;
    case "chat":
      step.with.tools?.forEach((name, index) => tool(name, [...path, "tools", index]));
      if (step.with.schema !== undefined) {
        const problems = jsonSchemaProblems(step.with.schema);
        for (const problem of problems)
          issues.push({
            path: [...path, "schema", ...problem.path],
            message: `Not a valid JSON Schema: ${problem.message}`,
          });
        if (problems.length > 0) return;
        try {
          prepareSchema(step.with.schema);
        } catch (error) {
          issues.push({ path: [...path, "schema"], message: `Not a usable JSON Schema: ${(error as Error).message}` });
        }
      }
      return;
    case "agent": {
      step.with.tools?.forEach((name, index) => tool(name, [...path, "tools", index]));
      const { agent, tools } = step.with;
      if ((agent === undefined) === (tools === undefined)) {
        issues.push({
          path,
          message:
            "An agent step names an agent from agents/ (agent:) or lists its tools (tools:), not both and not neither.",
        });
      } else if (agent !== undefined && !(options.agentNames ?? listAgentNames()).includes(agent)) {
        const names = options.agentNames ?? listAgentNames();
        issues.push({
          path: [...path, "agent"],
          message: `Unknown agent "${agent}". ${didYouMean(agent, names)}Agents: ${names.length > 0 ? names.join(", ") : "none"}.`,
        });
      }
      // An inline agent's approve: must name its tools (a typo would let the call run unasked); a named
      // agent's tools are checked against its definition when the step runs.
      step.with.approve?.forEach((name, index) => {
        if (tools === undefined || tools.includes(name) || tools.includes(`${name.slice(0, name.indexOf("/"))}/*`))
          return;
        if (name.endsWith("/*") && tools.some((listed) => listed.startsWith(name.slice(0, -1)))) return;
        issues.push({
          path: [...path, "approve", index],
          message: `approve: names "${name}", which is not in this step's tools (${tools.join(", ")}).`,
        });
      });
      return;
    }
    case "music": {
      const operation = step.with.operation ?? "generate";
      for (const field of MUSIC_NEEDS[operation]) {
        if (step.with[field] === undefined) issues.push({ path, message: `Music ${operation} needs with.${field}.` });
      }
      return;
    }
    case "image":
    case "approval":
      return;
  }
}
