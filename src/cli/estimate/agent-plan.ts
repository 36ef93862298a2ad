import type { ToolDefinition } from "../../chat/wire-tool.js";
import { DEFAULT_AGENT_MAX_TOKENS, DEFAULT_MAX_STEPS, listAgentDefinitions } from "../../../agents/index.js";
import type { AgentStep } from "../../workflow/schema/step-schemas.js";
import { planModels } from "../../workflow/step-models.js";
import type { EstimateContext } from "./estimate-context.js";

/** What an agent step will run: the same choices `runAgentStep` makes, worked out before the run. */
export interface AgentPlan {
  readonly model?: string;
  readonly fallbacks: readonly string[];
  readonly system: string;
  /** Tool names from tools/, or tools an agent definition brings itself. */
  readonly tools: ReadonlyArray<string | ToolDefinition>;
  readonly maxSteps: number;
  readonly maxTokens: number;
}

/** The model, tools, step limit and output budget of an agent step (named agent or inline tools). */
export function planAgent(step: AgentStep, context: EstimateContext): AgentPlan {
  const named =
    step.with.agent === undefined ? undefined : listAgentDefinitions().find((agent) => agent.name === step.with.agent);
  const models = planModels(step, context.workflow.definition.defaults);
  // The step's own model wins; a named agent keeps its model otherwise (as runAgentStep does).
  const model = step.with.model === undefined && named !== undefined ? named.model : models.model;
  return {
    ...(model === undefined ? {} : { model }),
    fallbacks: models.fallbacks,
    system: [named?.system ?? "", step.with.system ?? ""].filter((part) => part !== "").join("\n\n"),
    tools: named?.tools ?? step.with.tools ?? [],
    maxSteps: step.with.maxSteps ?? named?.maxSteps ?? DEFAULT_MAX_STEPS,
    maxTokens:
      typeof step.with.maxTokens === "number" ? step.with.maxTokens : (named?.maxTokens ?? DEFAULT_AGENT_MAX_TOKENS),
  };
}
