import { ConfigError } from "../src/errors.js";
import { dataAnalyst } from "./data-analyst.js";
import { mediaProducer } from "./media-producer.js";
import { researchAssistant } from "./research-assistant.js";
import { AgentRunner, type AgentContext } from "./support/agent-runner.js";
import type { AgentDefinition } from "./support/define-agent.js";

const AGENTS: readonly AgentDefinition[] = [dataAnalyst, mediaProducer, researchAssistant];

/** The names of every ready agent, sorted. */
export function listAgentNames(): string[] {
  return AGENTS.map((agent) => agent.name).sort();
}

/** Every ready agent's definition (the shape a workflow's `agents` option takes), sorted by name. */
export function listAgentDefinitions(): readonly AgentDefinition[] {
  return [...AGENTS].sort((a, b) => a.name.localeCompare(b.name));
}

/** The definition of a ready agent; an unknown name is a ConfigError listing the known ones. */
export function getAgentDefinition(name: string): AgentDefinition {
  const definition = AGENTS.find((agent) => agent.name === name);
  if (definition === undefined) {
    throw new ConfigError(`Unknown agent "${name}". Agents: ${listAgentNames().join(", ")}.`, { code: "unknown_agent" });
  }
  return definition;
}

/** Builds a ready agent by name for a workspace; call `run(task)` on it, then `close()`. */
export function createAgentByName(name: string, context: AgentContext): AgentRunner {
  return new AgentRunner(getAgentDefinition(name), context);
}

export { dataAnalyst, mediaProducer, researchAssistant };
export { analysisSchema, type Analysis } from "./data-analyst.js";
export { AgentRunner } from "./support/agent-runner.js";
export { AgentTranscript } from "./support/agent-transcript.js";
export { formatAgentEvent, type EventStyle } from "./support/format-agent-event.js";
export type { AgentContext, AgentRunOptions } from "./support/agent-runner.js";
export type { AgentModelRequest } from "./support/owned-clients.js";
export { defineAgent, DEFAULT_AGENT_MAX_TOKENS, DEFAULT_MAX_STEPS } from "./support/define-agent.js";
export type { AgentDefinition, AgentDefinitionInput, AgentTool } from "./support/define-agent.js";
export type { AgentEvent, AgentOutcome, ToolCallRecord } from "./support/agent-events.js";
export { toolErrorMessage } from "./support/step-middleware.js";
