// The public API of svc-flow: named exports only.
export { catalog } from "./catalog/index.js";
export type { Capabilities, Family, ModelInfo, ParameterRules, Tier } from "./catalog/models.js";
export { PUBLISHED_PRICES, mergePrices } from "./catalog/prices.js";
export type { MusicOperation, PriceOverrides, PriceTable, TokenPrice, UnitPrice } from "./catalog/prices.js";
export {
  AbortedError,
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ConfigError,
  ContextWindowError,
  EmptyOutputError,
  KeyDeactivatedError,
  NotOfferedError,
  ParameterError,
  QuotaExceededError,
  RateLimitError,
  StreamError,
  SvcFlowError,
  TimeoutError,
  UnknownModelError,
  UpstreamError,
} from "./errors.js";
export type { GatewayIds } from "./errors.js";
export { startLocalGateway, loadGatewayConfig } from "./server/index.js";
export type { GatewayConfigInput, GatewayStats, LocalGateway, LocalGatewayOptions } from "./server/index.js";
export { connectGateway, loadWorkflow, parseWorkflow, resumeWorkflow, runWorkflow, WorkflowError } from "./workflow/index.js";
export type {
  ArtifactRef,
  LoadWorkflowOptions,
  ResumeWorkflowOptions,
  RunReportWriter,
  RunResult,
  RunSummary,
  RunWorkflowOptions,
  Workflow,
  WorkflowEvent,
  WorkflowIssue,
} from "./workflow/index.js";
export {
  AgentRunner,
  AgentTranscript,
  createAgentByName,
  defineAgent,
  getAgentDefinition,
  listAgentDefinitions,
  listAgentNames,
} from "../agents/index.js";
export type {
  AgentContext,
  AgentDefinition,
  AgentDefinitionInput,
  AgentEvent,
  AgentOutcome,
  AgentRunOptions,
  AgentTool,
  ToolCallRecord,
} from "../agents/index.js";
export { createTools, listToolNames } from "../tools/index.js";
export type { ToolContext, ToolName } from "../tools/index.js";
