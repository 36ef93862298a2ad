import { dataAnalyst } from "./data-analyst.js";
import { mediaProducer } from "./media-producer.js";
import { getAgentDefinition } from "./ready-agents.js";
import { researchAssistant } from "./research-assistant.js";
import { AgentRunner, type AgentContext } from "./support/agent-runner.js";

/** Builds a ready agent by name for a workspace; call `run(task)` on it, then `close()`. */
export function createAgentByName(name: string, context: AgentContext): AgentRunner {
  return new AgentRunner(getAgentDefinition(name), context);
}

export { dataAnalyst, mediaProducer, researchAssistant };
export { getAgentDefinition, listAgentDefinitions, listAgentNames } from "./ready-agents.js";
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
export { ApprovalPending } from "./support/agent-journal.js";
export type {
  AgentJournal,
  PendingToolCall,
  StoredAgentMessage,
  ToolApprover,
  ToolDecision,
} from "./support/agent-journal.js";
