import { ConfigError } from "../src/errors.js";
import { dataAnalyst } from "./data-analyst.js";
import { mediaProducer } from "./media-producer.js";
import { researchAssistant } from "./research-assistant.js";
import type { AgentDefinition } from "./support/define-agent.js";

// The definitions alone (no agent loop), so a workflow can be checked without loading LangChain's agent.
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
    throw new ConfigError(`Unknown agent "${name}". Agents: ${listAgentNames().join(", ")}.`, {
      code: "unknown_agent",
    });
  }
  return definition;
}
