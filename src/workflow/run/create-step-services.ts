import type { Dispatcher } from "undici";
import { createTools } from "../../../tools/index.js";
import { callChat, type ChatCall, type ChatRetry } from "../../chat/call-chat.js";
import type { ChatReply } from "../../chat/chat-reply.js";
import type { MessageImage } from "../../chat/decode-image-reply.js";
import type { AgentJournal, ToolApprover } from "../../../agents/support/agent-journal.js";
import type { WorkflowToolContext } from "../schema/tool-settings-schema.js";
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
import type { AgentTool, ChatModelRequest, StepServices } from "../kinds/step-kind.js";
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
  /** What media links a step downloads go through (ExecuteOptions.mediaDispatcher). */
  readonly mediaDispatcher?: Dispatcher;
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
  return new StepServiceSet(shared, key, report, retry, trace);
}

// One per step instance (every item of a map makes one): what a step does not use is made when it first asks.
class StepServiceSet implements StepServices {
  readonly #shared: SharedServices;
  readonly #key: string;
  readonly #report: StepReport;
  readonly #retry: RetryPolicy;
  readonly trace?: TraceSpan;
  #recorder: UsageRecorder | undefined;
  #keyed: Dispatcher | undefined;
  #client: GatewayClient | undefined;
  #music: MusicClient | undefined;
  #musicJobs: MusicJobLog | undefined;
  #agentJournal: AgentJournal | undefined;
  #toolApprover: ToolApprover | undefined;

  constructor(shared: SharedServices, key: string, report: StepReport, retry: RetryPolicy, trace?: TraceSpan) {
    this.#shared = shared;
    this.#key = key;
    this.#report = report;
    this.#retry = retry;
    if (trace !== undefined) this.trace = trace;
  }

  get workspace(): string {
    return this.#shared.workspace;
  }

  get musicPollIntervalMs(): number | undefined {
    return this.#shared.musicPollIntervalMs;
  }

  get agents(): readonly AgentDefinition[] {
    return this.#shared.agents;
  }

  get artifacts(): ArtifactStore {
    return this.#shared.artifacts;
  }

  get baseDir(): string {
    return this.#shared.baseDir;
  }

  get mediaDispatcher(): Dispatcher | undefined {
    return this.#shared.mediaDispatcher;
  }

  get runDir(): string {
    return this.#shared.runDir;
  }

  get agentJournal(): AgentJournal {
    this.#agentJournal ??= agentStepJournal(this.#shared, this.#key, this.#report);
    return this.#agentJournal;
  }

  get toolApprover(): ToolApprover {
    this.#toolApprover ??= agentStepApprover(this.#shared, this.#key);
    return this.#toolApprover;
  }

  // Tagged with the step: its entries feed the step's report and byTag.step.
  get #billedTo(): UsageRecorder {
    this.#recorder ??= this.#shared.ledger.tagged({ step: this.#key });
    return this.#recorder;
  }

  // Made on the step's first call: a step that calls nothing (a replayed agent turn, a file tool) builds neither.
  #dispatcher(): Dispatcher {
    this.#keyed ??= keyedDispatcher(this.#shared.dispatcher, {
      base: `${this.#shared.runId}:${this.#key}`,
      step: this.#key,
      ...(this.#shared.intents === undefined ? {} : { intents: this.#shared.intents }),
    });
    return this.#keyed;
  }

  #stepClient(): GatewayClient {
    this.#client ??= new GatewayClient({
      apiKey: this.#shared.apiKey,
      baseURL: this.#shared.baseURL,
      dispatcher: this.#dispatcher(),
    });
    return this.#client;
  }

  #id(): string {
    return this.#key.slice(this.#key.lastIndexOf(".") + 1);
  }

  readonly #onWarning = (warning: ChatWarning): void => {
    if (warning.code === "fallback_used") {
      this.#report.fallbacks.push(warning.model);
      this.#shared.emit({ type: "step-fallback", key: this.#key, id: this.#id(), message: warning.message });
    } else {
      this.#shared.emit({ type: "warning", key: this.#key, message: warning.message });
    }
  };

  readonly #onRetry = (retry: ChatRetry): void =>
    this.#shared.emit({
      type: "step-retry",
      key: this.#key,
      id: this.#id(),
      attempt: retry.attempt,
      errorCode: retry.error.code,
      delayMs: retry.delayMs,
      model: retry.model,
    });

  async chat(call: Omit<ChatCall, "stream">, signal?: AbortSignal): Promise<ChatReply> {
    const limited = { ...call, max_tokens: call.max_tokens ?? defaultOutputTokens(call.model) };
    const send = () =>
      // The run's client, sending through the step's keyed view of its dispatcher: no client of the step's own.
      callChat(limited, {
        client: this.#shared.client,
        dispatcher: this.#dispatcher(),
        scheduler: this.#shared.scheduler,
        ledger: this.#billedTo,
        retry: this.#retry,
        ...(signal === undefined ? {} : { signal }),
        onWarning: this.#onWarning,
        onRetry: this.#onRetry,
      });
    if (this.trace === undefined) return send();
    const traced = await this.trace.call(limited);
    try {
      const reply = await send();
      await traced.end(reply);
      return reply;
    } catch (error) {
      await traced.fail(error);
      throw error;
    }
  }

  chatModel(request: ChatModelRequest): ChatGateway {
    return new ChatGateway({
      model: request.model,
      fallbacks: [...request.fallbacks],
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      maxTokens: request.maxTokens ?? defaultOutputTokens(request.model),
      ...(request.stop === undefined ? {} : { stop: request.stop }),
      retry: this.#retry,
      client: this.#stepClient(),
      scheduler: this.#shared.scheduler,
      ledger: this.#billedTo,
      onRetry: this.#onRetry,
      onWarning: this.#onWarning,
    });
  }

  #newMusicClient(billedTo: UsageRecorder): MusicClient {
    return new MusicClient({
      apiKey: this.#shared.apiKey,
      baseURL: this.#shared.baseURL,
      dispatcher: this.#dispatcher(),
      recorder: billedTo,
    });
  }

  music(): MusicClient {
    this.#music ??= this.#newMusicClient(this.#billedTo);
    return this.#music;
  }

  // `call`: the tool call a job is kept under, when a tool (not the step itself) starts it.
  submitMusic(
    operation: string,
    start: (music: MusicClient) => Promise<MusicClipsResult>,
    call?: string,
  ): Promise<JournaledMusicJob> {
    return submitMusicJob(
      {
        key: this.#key,
        operation,
        ...(call === undefined ? {} : { call }),
        recorder: this.#billedTo,
        costs: this.#shared.costs,
        client: (billedTo) => this.#newMusicClient(billedTo),
      },
      start,
    );
  }

  get musicJobs(): MusicJobLog {
    this.#musicJobs ??= this.#newMusicJobs();
    return this.#musicJobs;
  }

  #newMusicJobs(): MusicJobLog {
    // A call's job started in this execution wins over the journal's: a repeat of a call whose job failed
    // then looks up the new job, not the failed one again.
    const started = new Map<string, JournaledMusicJob>();
    return {
      find: (call) => started.get(call) ?? this.#shared.replay.toolMusic.get(toolMusicKey(this.#key, call)),
      submit: async (operation, call, start) => {
        const job = await this.submitMusic(operation, start, call);
        started.set(call, job);
        return job;
      },
    };
  }

  refundMusic(requestId: string): void {
    const entry = this.#shared.ledger.refund(requestId);
    if (entry !== undefined)
      this.#shared.emit({
        type: "warning",
        key: this.#key,
        message: `A music job of step ${this.#key} failed upstream; the gateway refunds it.`,
      });
  }

  // Tools that call the gateway go through this step's clients: billed to it, under its idempotency keys.
  tools(names: readonly string[], settings?: WorkflowToolContext): AgentTool[] {
    return [
      ...createTools(
        names.filter((name) => !isMcpReference(name)),
        {
          ...settings,
          workspace: this.#shared.workspace,
          chat: ({ tool: _tool, ...call }, signal) => this.chat(call, signal),
          downloadImage: (link, signal) => this.downloadImage(link, signal),
          ledger: this.#billedTo,
          music: this.music(),
          refundMusic: (requestId) => this.refundMusic(requestId),
          musicJobs: this.musicJobs,
          ...(this.#shared.musicPollIntervalMs === undefined
            ? {}
            : { musicPollIntervalMs: this.#shared.musicPollIntervalMs }),
        },
      ),
      ...mcpTools(this.#shared.mcp, names.filter(isMcpReference)),
    ];
  }

  downloadImage(link: string, signal?: AbortSignal): Promise<MessageImage> {
    return this.#shared.client.downloadImage(link, signal === undefined ? {} : { signal });
  }

  journaledMusic(): JournaledMusicJob | undefined {
    return this.#shared.replay.music.get(this.#key);
  }
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
