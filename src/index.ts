// The public API of svc-flow: named exports only.

// Catalogue and prices
export { catalog } from "./catalog/index.js";
export type { Capabilities, Family, ModelInfo, ParameterRules, Tier } from "./catalog/models.js";
export { PUBLISHED_PRICES, mergePrices } from "./catalog/prices.js";
export type { MusicOperation, PriceOverrides, PriceTable, TokenPrice, UnitPrice } from "./catalog/prices.js";
export { countTextTokens } from "./catalog/tokens.js";
export { countPromptTokens } from "./gateway/prompt-tokens.js";

// Errors
export {
  AbortedError,
  ApprovalRejectedError,
  AuthenticationError,
  BadRequestError,
  BudgetExceededError,
  ConfigError,
  ContextWindowError,
  EmptyOutputError,
  KeyDeactivatedError,
  ModelAccessError,
  NotOfferedError,
  ParameterError,
  QuotaExceededError,
  RateLimitError,
  StreamError,
  StructuredOutputError,
  SvcFlowError,
  TimeoutError,
  ToolInputError,
  UnknownModelError,
  UpstreamError,
  redactSecrets,
} from "./errors.js";
export type { GatewayIds, SvcFlowErrorOptions } from "./errors.js";

// Gateway clients
export { GatewayClient } from "./gateway/gateway-client.js";
export type { CallOptions, GatewayClientOptions, StreamCallOptions } from "./gateway/gateway-client.js";
export type { DownloadedImage, ImageDownloadOptions } from "./gateway/download-image.js";
export type { ChatStream } from "./gateway/chat-stream.js";
export { MusicClient } from "./gateway/music-client.js";
export type { MusicCallOptions, MusicClientOptions, MusicClipsResult } from "./gateway/music-client.js";
export { parseSse } from "./gateway/parse-sse.js";
export { errorFromResponse } from "./gateway/error-from-response.js";
export type { OperationOutcome, PlannedOperation, UsageRecorder, UsageReservation } from "./gateway/usage-recorder.js";
export type {
  ChatChunk,
  ChatRequest,
  ChatResponse,
  Clip,
  Message,
  ModelList,
  QuotaReport,
  Usage,
} from "./gateway/wire.js";

// Scheduling
export { Scheduler } from "./scheduling/scheduler.js";
export type { LaneLimits, SchedulerOptions, Slot } from "./scheduling/scheduler.js";
export { withRetry } from "./scheduling/retry.js";
export type { RetryOptions, RetryPolicy } from "./scheduling/retry.js";
export { RetryBudget } from "./scheduling/retry-budget.js";

// Chat core (no LangChain)
export { callChat } from "./chat/call-chat.js";
export type { ChatCall, ChatCallOptions } from "./chat/call-chat.js";
export type { ChatEvent, ChatEventStream, ChatReply } from "./chat/chat-reply.js";
export type {
  InvalidReplyToolCall,
  ReplyToolCall,
  ToolCallExtras,
  ToolCallFragment,
} from "./chat/assemble-tool-calls.js";
export type { PartialReply, ReplyEvent } from "./chat/collect-reply.js";
export { ChatWarning, ParameterWarning } from "./chat/parameter-warning.js";
export type { ChatWarningCode, WarningHandler } from "./chat/parameter-warning.js";
export { imageLinksFromReply, imagesFromReply } from "./chat/decode-image-reply.js";
export type { CallTrace, SpanStart, TraceSpan, Tracer } from "./chat/trace-span.js";
export type { MessageImage } from "./chat/decode-image-reply.js";

// Chat model (LangChain)
export { ChatGateway, imagesFromMessage, langChainTracer } from "./langchain/index.js";
export type { ChatGatewayCallOptions, ChatGatewayOptions, TraceOptions } from "./langchain/index.js";

// Cost
export { CostLedger } from "./cost/cost-ledger.js";
export type { CostLedgerOptions, CostReservation } from "./cost/cost-ledger.js";
export type { BudgetAccount, BudgetHold, BudgetRefusal, HoldAnswer } from "./cost/budget-account.js";
export { loadPriceFile } from "./cost/load-price-file.js";
export { costEntrySchema } from "./cost/cost-entry.js";
export type { CostEntry } from "./cost/cost-entry.js";
export { formatSummaryTable, formatYuan } from "./cost/format-summary-table.js";
export type { CostSummary } from "./cost/summarize-entries.js";

// Local gateway (loaded when started; svc-flow/local-gateway has all of it)
export { startLocalGateway, loadGatewayConfig } from "./server/on-first-use.js";
export type { GatewayConfigInput, GatewayStats, LocalGateway, LocalGatewayOptions } from "./server/index.js";

// Workflows (loaded on the first run; svc-flow/workflow has the engine). runWorkflow, resumeWorkflow,
// rerunWorkflow and connectGateway are composed: with no gateway configured they start a local one.
export { connectGateway, rerunWorkflow, resumeWorkflow, runWorkflow } from "./cli/run-on-first-use.js";
export { loadWorkflow, parseWorkflow } from "./workflow/load/load-workflow.js";
export { renderReport } from "./workflow/report/render-report.js";
export { workflowJsonSchema } from "./workflow/schema/workflow-json-schema.js";
export { WorkflowError } from "./workflow/workflow-error.js";
export type {
  ArtifactRef,
  LoadWorkflowOptions,
  RerunWorkflowOptions,
  ResumeWorkflowOptions,
  RunReportWriter,
  RunResult,
  RunSummary,
  RunWorkflowOptions,
  Workflow,
  WorkflowEvent,
  WorkflowIssue,
} from "./workflow/index.js";

// Agents and tools
export {
  AgentRunner,
  AgentTranscript,
  ApprovalPending,
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
  AgentJournal,
  AgentOutcome,
  AgentRunOptions,
  AgentTool,
  PendingToolCall,
  StoredAgentMessage,
  ToolApprover,
  ToolCallRecord,
  ToolDecision,
} from "../agents/index.js";
export { createTools, listToolNames } from "../tools/index.js";
export type { ToolContext, ToolName } from "../tools/index.js";
