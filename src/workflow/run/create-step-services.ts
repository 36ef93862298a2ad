import type { Dispatcher } from "undici";
import { createTools } from "../../../tools/index.js";
import { callChat, type ChatRetry } from "../../chat/call-chat.js";
import type { ChatWarning } from "../../chat/parameter-warning.js";
import type { TraceSpan } from "../../chat/trace-span.js";
import { ChatGateway } from "../../langchain/chat-gateway.js";
import { mcpLangChainTools } from "../../../agents/support/mcp-tools.js";
import { ConfigError } from "../../errors.js";
import { isMcpReference } from "../mcp/mcp-reference.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { CostLedger } from "../../cost/cost-ledger.js";
import { GatewayClient } from "../../gateway/gateway-client.js";
import { MusicClient, type MusicClipsResult } from "../../gateway/music-client.js";
import type { UsageRecorder } from "../../gateway/usage-recorder.js";
import type { RetryPolicy } from "../../scheduling/retry.js";
import type { Scheduler } from "../../scheduling/scheduler.js";
import type { AgentDefinition } from "../../../agents/index.js";
import type { MusicJobLog } from "../../../tools/support/music-job-log.js";
import { defaultOutputTokens } from "../kinds/default-output-tokens.js";
import type { StepServices } from "../kinds/step-kind.js";
import type { WorkflowEvent } from "../workflow-event.js";
import type { ArtifactStore } from "./artifact-store.js";
import type { CallIntents } from "./call-intents.js";
import type { CostJournal } from "./cost-journal.js";
import { agentStepApprover, agentStepJournal } from "./agent-step-journal.js";
import type { ApprovalRequest, JournaledMusicJob } from "./journal-records.js";
import type { JournalSink } from "./run-journal.js";
import { keyedDispatcher } from "./idempotency.js";
import { toolMusicKey, type Replay } from "./replay.js";
import type { StepReport } from "./step-report.js";
import { submitMusicJob } from "./submit-music-job.js";

/** What every step's services share within a run. */
export interface SharedServices {
  /** The run's client, for what is not billed (image downloads). */
  readonly client: GatewayClient;
  readonly scheduler: Scheduler;
  /** What calls go out on; each step sends its billable calls through its own keyed view of it (idempotency.ts). */
  readonly dispatcher: Dispatcher;
  /** The run id, the base of its calls' idempotency keys. */
  readonly runId: string;
  /** Where every billable call's intent is journaled before it is sent; none when nothing journals them. */
  readonly intents?: CallIntents;
  readonly apiKey: string;
  readonly baseURL: string;
  readonly ledger: CostLedger;
  readonly artifacts: ArtifactStore;
  /** Where the ledger's entries are journaled (the ledger's onEntry appends to it). */
  readonly costs: CostJournal;
  readonly replay: Replay;
  readonly baseDir: string;
  readonly runDir: string;
  /** Folder the file tools work in. */
  readonly workspace: string;
  readonly agents: readonly AgentDefinition[];
  /** The run's MCP servers, when its workflow has an `mcp:` section. */
  readonly mcp?: McpServers;
  /** compose_music's first poll interval (the run's music polling). */
  readonly musicPollIntervalMs?: number;
  readonly emit: (event: WorkflowEvent) => void;
  /** The run's journal, for what steps journal themselves (agent turns, approval questions). */
  readonly journal: JournalSink;
  /** Approval questions the run waits on when it ends. */
  readonly waiting: ApprovalRequest[];
}

/** The services of one step: its calls are tagged with the step's key in the ledger (and traced in its span, when
 * the run is traced), carry its idempotency keys and journal their intents; chat calls always carry an output limit. */
export function createStepServices(
  shared: SharedServices,
  key: string,
  report: StepReport,
  retry: RetryPolicy,
  trace?: TraceSpan,
): StepServices {
  const recorder = shared.ledger.tagged({ step: key });
  const id = key.slice(key.lastIndexOf(".") + 1);
  let music: MusicClient | undefined;
  // Made on the step's first call: a step that calls nothing (a replayed agent turn, a file tool) builds neither.
  let keyed: Dispatcher | undefined;
  let client: GatewayClient | undefined;
  const dispatcher = () =>
    (keyed ??= keyedDispatcher(shared.dispatcher, {
      base: `${shared.runId}:${key}`,
      step: key,
      ...(shared.intents === undefined ? {} : { intents: shared.intents }),
    }));
  const stepClient = () =>
    (client ??= new GatewayClient({ apiKey: shared.apiKey, baseURL: shared.baseURL, dispatcher: dispatcher() }));
  const onWarning = (warning: ChatWarning): void => {
    if (warning.code === "fallback_used") {
      report.fallbacks.push(warning.model);
      shared.emit({ type: "step-fallback", key, id, message: warning.message });
    } else {
      shared.emit({ type: "warning", key, message: warning.message });
    }
  };
  const onRetry = (retry: ChatRetry): void =>
    shared.emit({
      type: "step-retry",
      key,
      id,
      attempt: retry.attempt,
      errorCode: retry.error.code,
      delayMs: retry.delayMs,
      model: retry.model,
    });
  const chat: StepServices["chat"] = async (call, signal) => {
    const limited = { ...call, max_tokens: call.max_tokens ?? defaultOutputTokens(call.model) };
    const send = () =>
      callChat(limited, {
        client: stepClient(),
        scheduler: shared.scheduler,
        ledger: recorder,
        retry,
        ...(signal === undefined ? {} : { signal }),
        onWarning,
        onRetry,
      });
    if (trace === undefined) return send();
    const traced = await trace.call(limited);
    try {
      const reply = await send();
      await traced.end(reply);
      return reply;
    } catch (error) {
      await traced.fail(error);
      throw error;
    }
  };
  const chatModel: StepServices["chatModel"] = (request) =>
    new ChatGateway({
      model: request.model,
      fallbacks: [...request.fallbacks],
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      maxTokens: request.maxTokens ?? defaultOutputTokens(request.model),
      ...(request.stop === undefined ? {} : { stop: request.stop }),
      retry,
      client: stepClient(),
      scheduler: shared.scheduler,
      ledger: recorder,
      onRetry,
      onWarning,
    });
  const newMusicClient = (billedTo: UsageRecorder) =>
    new MusicClient({
      apiKey: shared.apiKey,
      baseURL: shared.baseURL,
      dispatcher: dispatcher(),
      recorder: billedTo,
    });
  const musicClient = () => {
    music ??= newMusicClient(recorder);
    return music;
  };
  // `call`: the tool call a job is kept under, when a tool (not the step itself) starts it.
  const submitMusic = (operation: string, start: (music: MusicClient) => Promise<MusicClipsResult>, call?: string) =>
    submitMusicJob(
      {
        key,
        operation,
        ...(call === undefined ? {} : { call }),
        recorder,
        costs: shared.costs,
        client: newMusicClient,
      },
      start,
    );
  // A call's job started in this execution wins over the journal's: a repeat of a call whose job failed
  // then looks up the new job, not the failed one again.
  const started = new Map<string, JournaledMusicJob>();
  const musicJobs: MusicJobLog = {
    find: (call) => started.get(call) ?? shared.replay.toolMusic.get(toolMusicKey(key, call)),
    submit: async (operation, call, start) => {
      const job = await submitMusic(operation, start, call);
      started.set(call, job);
      return job;
    },
  };
  const refundMusic = (requestId: string) => {
    const entry = shared.ledger.refund(requestId);
    if (entry !== undefined)
      shared.emit({
        type: "warning",
        key,
        message: `A music job of step ${key} failed upstream; the gateway refunds it.`,
      });
  };
  return {
    chat,
    chatModel,
    music: musicClient,
    refundMusic,
    // Tools that call the gateway go through this step's clients: billed to it, under its idempotency keys.
    tools: (names, settings) => [
      ...createTools(
        names.filter((name) => !isMcpReference(name)),
        {
          ...settings,
          workspace: shared.workspace,
          chat: ({ tool: _tool, ...call }, signal) => chat(call, signal),
          downloadImage: (link, signal) => shared.client.downloadImage(link, signal === undefined ? {} : { signal }),
          ledger: recorder,
          music: musicClient(),
          refundMusic,
          musicJobs,
          ...(shared.musicPollIntervalMs === undefined ? {} : { musicPollIntervalMs: shared.musicPollIntervalMs }),
        },
      ),
      ...mcpTools(shared.mcp, names.filter(isMcpReference)),
    ],
    workspace: shared.workspace,
    ...(trace === undefined ? {} : { trace }),
    ...(shared.musicPollIntervalMs === undefined ? {} : { musicPollIntervalMs: shared.musicPollIntervalMs }),
    agents: shared.agents,
    artifacts: shared.artifacts,
    baseDir: shared.baseDir,
    runDir: shared.runDir,
    downloadImage: (link, signal) => shared.client.downloadImage(link, signal === undefined ? {} : { signal }),
    journaledMusic: () => shared.replay.music.get(key),
    submitMusic,
    musicJobs,
    agentJournal: agentStepJournal(shared, key, report),
    toolApprover: agentStepApprover(shared, key),
  };
}

function mcpTools(servers: McpServers | undefined, references: readonly string[]) {
  if (references.length === 0) return [];
  if (servers === undefined)
    throw new ConfigError(
      `${references.join(", ")} name MCP tools, but the workflow starts no MCP servers. Add them under mcp:.`,
      { code: "unknown_tool" },
    );
  return mcpLangChainTools(servers, references);
}
