import type { Dispatcher } from "undici";
import type { ChatCall } from "../../chat/call-chat.js";
import type { ChatReply } from "../../chat/chat-reply.js";
import type { MessageImage } from "../../chat/decode-image-reply.js";
import type { TraceSpan } from "../../chat/trace-span.js";
import type { ChatGateway } from "../../langchain/chat-gateway.js";
import type { MusicClient, MusicClipsResult } from "../../gateway/music-client.js";
import type { RetryPolicy } from "../../scheduling/retry.js";
import type { CallStep } from "../schema/step-schemas.js";
import type { WorkflowToolContext } from "../schema/tool-settings-schema.js";
import type { ArtifactStore } from "../run/artifact-store.js";
import type { JournaledMusicJob } from "../run/journal-records.js";
import type { AgentDefinition } from "../../../agents/index.js";
import type { AgentJournal, ToolApprover } from "../../../agents/support/agent-journal.js";
import type { MusicJobLog } from "../../../tools/support/music-job-log.js";

/** A tool from tools/ or an MCP server: runnable by a chat step's tool loop and by an agent. */
export type AgentTool = Exclude<AgentDefinition["tools"][number], string>;

/** Settings of one chat model for one step. */
export interface ChatModelRequest {
  readonly model: string;
  readonly fallbacks: readonly string[];
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly stop?: string[];
}

/** What the engine gives a step kind: clients bound to this step's ledger tags and idempotency keys. */
export interface StepServices {
  /** One chat call billed to this step and retried by its policy (an output limit is always set:
   * the model's default when the call has none). */
  chat(call: Omit<ChatCall, "stream">, signal?: AbortSignal): Promise<ChatReply>;
  /** A LangChain chat model with the same billing and retries, for agents. */
  chatModel(request: ChatModelRequest): ChatGateway;
  /** The step's music client (one per step), billed to it. */
  music(): MusicClient;
  /** Records the gateway's automatic refund of a music job that failed upstream. */
  refundMusic(requestId: string): void;
  /** Tools from tools/, confined to the run's workspace, with the workflow's `tools:` settings. */
  tools(names: readonly string[], settings?: WorkflowToolContext): AgentTool[];
  /** The folder the file tools work in. */
  readonly workspace: string;
  /** The step's span when the run is traced: its chat calls are traced in it, agents nest their runs in it. */
  readonly trace?: TraceSpan;
  /** compose_music's first poll interval, when the run sets one. */
  readonly musicPollIntervalMs?: number;
  /** Agents that `agent:` may name. */
  readonly agents: readonly AgentDefinition[];
  readonly artifacts: ArtifactStore;
  /** Folder that relative media paths are read from (the workflow file's). */
  readonly baseDir: string;
  /** What media links the step downloads go through; undefined: the network as it is. */
  readonly mediaDispatcher?: Dispatcher;
  readonly runDir: string;
  /** Downloads an image a reply gave as a link: the gateway's own links through its connections,
   * others from public addresses only, checked to be an image, within the size and time limits. */
  downloadImage(link: string, signal?: AbortSignal): Promise<MessageImage>;
  /** The music job an earlier execution of this step submitted (and paid for), if the journal has it. */
  journaledMusic(): JournaledMusicJob | undefined;
  /** Sends one billed music call that starts a job (one attempt), billed to this step; resolves once
   * the job is journaled, in one record with the call's bill. */
  submitMusic(operation: string, call: (music: MusicClient) => Promise<MusicClipsResult>): Promise<JournaledMusicJob>;
  /** The music jobs this step's tool calls (compose_music, in a tool or agent step) start, journaled with their bills
   * and looked up by call, so a resumed step's repeat of a call finds the job it paid for. */
  readonly musicJobs: MusicJobLog;
  /** The run journal as this step's agent turn log: turns and tool results journaled, and read back on resume. */
  readonly agentJournal: AgentJournal;
  /** Answers this step's agent's tool calls that need approval from the journal, or journals the question and waits. */
  readonly toolApprover: ToolApprover;
}

/** Everything a leaf step kind gets for one run of one step. */
export interface LeafContext<S extends CallStep = CallStep> {
  /** The step instance, e.g. `posters[2].poster`. */
  readonly key: string;
  readonly step: S;
  /** The step's `with:`, rendered (expressions replaced by their values). */
  readonly input: Record<string, unknown>;
  /** The models to try, already resolved against defaults and checked. */
  readonly models: { readonly model?: string; readonly fallbacks: readonly string[] };
  /** Workflow defaults that apply to calls (temperature, maxTokens). */
  readonly settings: { readonly temperature?: number; readonly maxTokens?: number };
  /** The workflow's `tools:` section as tool options (fetch_url's limits and private network access). */
  readonly toolContext: WorkflowToolContext;
  readonly retry: RetryPolicy;
  readonly signal: AbortSignal;
  readonly services: StepServices;
}

/** Runs one kind of leaf step; resolves with the step's output (JSON-safe: artifacts by reference). */
export type LeafRunner<S extends CallStep = CallStep> = (context: LeafContext<S>) => Promise<unknown>;
