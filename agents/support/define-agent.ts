import type { StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { getModel } from "../../src/catalog/models.js";
import { ConfigError } from "../../src/errors.js";
import { mcpSectionSchema, type McpSection } from "../../src/workflow/mcp/mcp-section-schema.js";
import { isToolName, listToolNames, type ToolName } from "../../tools/tool-names.js";

/** Model turns an agent may take unless its definition says otherwise. */
export const DEFAULT_MAX_STEPS = 12;
/** Output budget of each of the agent's own model turns unless its definition says otherwise. */
export const DEFAULT_AGENT_MAX_TOKENS = 2048;

/** A tool an agent may call: a name from tools/, an MCP tool of its `mcp:` servers (`server/tool`, `server/*`), or a LangChain tool of your own. */
export type AgentTool = ToolName | `${string}/${string}` | StructuredToolInterface;

/** A ready agent, as data: what the CLI, code and workflow `agent` steps all build from. */
export interface AgentDefinition {
  /** Kebab-case, as `svc-flow agent NAME` and a workflow's `agent:` name it. */
  readonly name: string;
  /** One line for `svc-flow agent --help` and listings. */
  readonly description: string;
  /** The system prompt. */
  readonly system: string;
  /** Tools the agent may call: names from tools/ (created for its workspace), or your own LangChain tools. */
  readonly tools: readonly AgentTool[];
  /** The model it runs on unless the caller names another; it must call tools. */
  readonly model: string;
  /** Model turns before the run stops with a "step limit" result. */
  readonly maxSteps: number;
  /** Output budget of each model turn (it also bounds what a budget reserves per turn). */
  readonly maxTokens: number;
  /** When set, the final answer is an object of this (zod) shape, checked before it is returned. */
  readonly responseFormat?: z.ZodType<Record<string, unknown>>;
  /** MCP servers (as a workflow's `mcp:` section) the agent starts when it runs; `tools` names theirs as `server/tool` or `server/*`. */
  readonly mcp?: McpSection;
  /** Tools whose calls wait for a person's approval: names from `tools`, `server/tool` or `server/*`. */
  readonly approve?: readonly string[];
}

/** What `defineAgent` takes: a definition whose limits may be left to the defaults. */
export type AgentDefinitionInput = Omit<AgentDefinition, "maxSteps" | "maxTokens" | "tools"> & {
  readonly tools: readonly (string | StructuredToolInterface)[];
  readonly maxSteps?: number;
  readonly maxTokens?: number;
};

const definitionSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/, 'a kebab-case name such as "research-assistant"'),
  description: z.string().min(1),
  system: z.string().min(1),
  tools: z.array(
    z.union([z.string(), z.object({ name: z.string().min(1), invoke: z.function() }).loose()], {
      error: "expected a tool name from tools/ or a LangChain tool (an object with a name and invoke)",
    }),
  ),
  model: z.string().min(1),
  maxSteps: z.int().min(1).max(200).optional(),
  maxTokens: z.int().min(1).optional(),
  mcp: mcpSectionSchema.optional(),
  approve: z.array(z.string().min(1)).optional(),
});

/** Checks an agent definition once, when it is made: its name, tools, model and limits. */
export function defineAgent(input: AgentDefinitionInput): AgentDefinition {
  const parsed = definitionSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `Agent definition "${String(input.name)}": ${issue.path.join(".") || "value"}: ${issue.message}.`,
    );
  }
  const servers = Object.keys(input.mcp ?? {});
  const strayMcp = input.tools.find(
    (tool): tool is string =>
      typeof tool === "string" && tool.includes("/") && !servers.includes(tool.slice(0, tool.indexOf("/"))),
  );
  if (strayMcp !== undefined) {
    throw new ConfigError(
      `Agent "${input.name}" lists the MCP tool ${strayMcp}, but its mcp: does not define that server. Servers: ${servers.join(", ") || "none"}.`,
      { code: "unknown_tool" },
    );
  }
  const unknown = input.tools.filter(
    (tool): tool is string => typeof tool === "string" && !tool.includes("/") && !isToolName(tool),
  );
  if (unknown.length > 0) {
    throw new ConfigError(
      `Agent "${input.name}" lists unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}. Known tools: ${listToolNames().join(", ")}.`,
      { code: "unknown_tool" },
    );
  }
  const names = input.tools.map((tool) => (typeof tool === "string" ? tool : tool.name));
  // A library name listed twice is one tool; a tool of your own that shares a name is a clash.
  const twice = names.find((name, index) => {
    const first = names.indexOf(name);
    return first !== index && !(typeof input.tools[first] === "string" && typeof input.tools[index] === "string");
  });
  if (twice !== undefined) {
    throw new ConfigError(`Agent "${input.name}" has two tools named ${twice}. Give each tool its own name.`, {
      code: "duplicate_tool",
    });
  }
  checkApprove(input.approve ?? [], names, servers, input.name);
  checkAgentModel(input.model, input.name);
  return Object.freeze({
    ...input,
    tools: Object.freeze([...new Set(input.tools as readonly AgentTool[])]),
    maxSteps: input.maxSteps ?? DEFAULT_MAX_STEPS,
    maxTokens: input.maxTokens ?? DEFAULT_AGENT_MAX_TOKENS,
  });
}

/** Refuses an `approve` entry that names none of the agent's tools (a typo would let the call run unasked). */
export function checkApprove(
  approve: readonly string[],
  toolNames: readonly string[],
  servers: readonly string[],
  owner: string,
): void {
  for (const name of approve) {
    const slash = name.indexOf("/");
    const known = slash === -1 ? toolNames.includes(name) : servers.includes(name.slice(0, slash));
    if (!known) {
      throw new ConfigError(
        `Agent "${owner}" asks approval for ${name}, which is not one of its tools. Its tools: ${toolNames.join(", ") || "none"}.`,
        { code: "unknown_tool" },
      );
    }
  }
}

/** Refuses a model an agent cannot run on: unknown, or one that does not call tools (image models). */
export function checkAgentModel(model: string, agentName: string): void {
  const info = getModel(model);
  if (!info.capabilities.tools) {
    throw new ConfigError(
      `Agent "${agentName}" cannot run on ${model}: it does not call tools. Use a text model such as alpha-sonnet-4-6 or beta-4o.`,
      { code: "invalid_parameter" },
    );
  }
}
