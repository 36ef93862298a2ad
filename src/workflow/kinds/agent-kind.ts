import { z } from "zod";
import { AgentRunner, defineAgent, type AgentDefinition, type AgentRunOptions } from "../../../agents/index.js";
import { ApprovalPending } from "../../../agents/support/agent-journal.js";
import { checkApprove } from "../../../agents/support/define-agent.js";
import { WaitingError } from "../run/error-summary.js";
import { ConfigError, SvcFlowError } from "../../errors.js";
import { stringifyValue } from "../expression/index.js";
import { didYouMean } from "../../catalog/closest-name.js";
import type { AgentStep } from "../schema/step-schemas.js";
import { samplingFieldsSchema } from "./chat-kind.js";
import { parseStepInput } from "./parse-step-input.js";
import type { LeafContext } from "./step-kind.js";

const INLINE_SYSTEM =
  "You are a careful agent. Use the tools to do the task: call them for facts, files and arithmetic " +
  "instead of guessing. When the task is done, answer with the result.";

const text = z.unknown().transform((value) => (typeof value === "string" ? value : stringifyValue(value)));
const agentInputSchema = samplingFieldsSchema.extend({
  prompt: text,
  system: text.optional(),
  agent: z.string().optional(),
  tools: z.array(z.string()).optional(),
  approve: z.array(z.string()).optional(),
  maxSteps: z.int().positive().optional(),
});

/**
 * `uses: agent`: a ready agent from agents/ (`agent:`), or one made of `tools:` with a general
 * instruction, run by the agents' runner with this step's models, ledger tags and idempotency keys.
 * Output: `{ text, model, steps, toolCalls }`, plus `structured` for agents with a response format.
 * An agent that hits its step limit fails the step.
 */
export async function runAgentStep(context: LeafContext<AgentStep>): Promise<unknown> {
  const input = parseStepInput(agentInputSchema, context.input, context.key);
  const { services, signal } = context;
  const base =
    input.agent === undefined ? inlineAgent(context, input.tools ?? []) : namedAgent(input.agent, services.agents);
  const definition: AgentDefinition = {
    ...base,
    ...(input.system === undefined || input.system === "" ? {} : { system: `${base.system}\n\n${input.system}` }),
    ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
  };
  // The step's own model wins; a named agent keeps its model otherwise (defaults.model is for inline agents).
  const model = context.step.with.model === undefined && input.agent !== undefined ? base.model : context.models.model;
  const temperature = input.temperature ?? context.settings.temperature;
  const runner = new AgentRunner(definition, {
    workspace: services.workspace,
    ...(model === undefined ? {} : { model }),
    ...(input.maxSteps === undefined ? {} : { maxSteps: input.maxSteps }),
    chatModel: (request) =>
      services.chatModel({
        model: request.model,
        // Fallbacks are for the agent's own turns; a gateway tool asks for one model.
        fallbacks: request.tool === undefined ? context.models.fallbacks : [],
        ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
        ...(temperature === undefined ? {} : { temperature }),
        ...(input.stop === undefined ? {} : { stop: input.stop }),
      }),
    toolChat: ({ tool: _tool, ...call }, toolSignal) => services.chat(call, toolSignal ?? signal),
    downloadImage: (link, toolSignal) => services.downloadImage(link, toolSignal ?? signal),
    // Each turn and tool result is journaled as it completes; a resumed step takes them from the journal.
    journal: services.agentJournal,
    approver: services.toolApprover,
    ...(input.approve === undefined ? {} : { approve: input.approve }),
    music: services.music(),
    refundMusic: (requestId) => services.refundMusic(requestId),
    toolOptions: {
      ...context.toolContext,
      musicJobs: services.musicJobs,
      ...(services.musicPollIntervalMs === undefined ? {} : { musicPollIntervalMs: services.musicPollIntervalMs }),
    },
    signal,
  });
  if (input.approve !== undefined) {
    const tools = definition.tools.map((tool) => (typeof tool === "string" ? tool : tool.name));
    const servers = tools.filter((tool) => tool.includes("/")).map((tool) => tool.slice(0, tool.indexOf("/")));
    checkApprove(input.approve, tools, [...servers, ...Object.keys(definition.mcp ?? {})], context.key);
  }
  try {
    // The agent's runs (LangChain's) nest under the step's span; the engine holds its callbacks without reading them.
    const callbacks = services.trace?.callbacks as AgentRunOptions["callbacks"];
    const outcome = await runner.run(input.prompt, { signal, ...(callbacks === undefined ? {} : { callbacks }) });
    if (outcome.status === "step_limit")
      throw new SvcFlowError("agent_step_limit", `Step "${context.key}": ${outcome.message}`);
    return {
      text: outcome.answer,
      model: outcome.model,
      steps: outcome.steps,
      toolCalls: outcome.toolCalls,
      ...(outcome.structuredResponse === undefined ? {} : { structured: outcome.structuredResponse }),
    };
  } catch (error) {
    // A tool call waits for `svc-flow approve`: the step waits (the run ends waiting), it did not fail.
    if (error instanceof ApprovalPending) throw new WaitingError(context.key);
    throw error;
  } finally {
    await runner.close();
  }
}

function namedAgent(name: string, agents: readonly AgentDefinition[]): AgentDefinition {
  const found = agents.find((agent) => agent.name === name);
  if (found !== undefined) return found;
  const names = agents.map((agent) => agent.name);
  throw new ConfigError(
    `Unknown agent "${name}". ${didYouMean(name, names)}Agents: ${names.length > 0 ? names.join(", ") : "none"}.`,
    {
      code: "unknown_agent",
    },
  );
}

function inlineAgent(context: LeafContext<AgentStep>, tools: readonly string[]): AgentDefinition {
  const model = context.models.model;
  if (model === undefined)
    throw new ConfigError(`Step "${context.key}" has no model. Set with.model or defaults.model.`);
  // MCP tools (server/tool) come from the run's servers as LangChain tools; library names stay names.
  const mcp = tools.filter((name) => name.includes("/"));
  const library = tools.filter((name) => !name.includes("/"));
  const toolList = [...library, ...(mcp.length === 0 ? [] : context.services.tools(mcp))];
  return defineAgent({
    name: "inline-agent",
    description: `The agent of step ${context.key}`,
    system: INLINE_SYSTEM,
    tools: toolList,
    model,
  });
}
