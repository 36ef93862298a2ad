import type { Callbacks } from "@langchain/core/callbacks/manager";
import { mkdir } from "node:fs/promises";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { MessageImage } from "../../src/chat/decode-image-reply.js";
import { ConfigError, SvcFlowError, redactSecrets } from "../../src/errors.js";
import type { MusicClient } from "../../src/gateway/music-client.js";
import { toAbortedError } from "../../src/gateway/to-aborted-error.js";
import type { UsageRecorder } from "../../src/gateway/usage-recorder.js";
import { createTools, type ToolContext, type ToolName } from "../../tools/index.js";
import type { GatewayConnectionOptions, ToolChat } from "../../tools/support/gateway-access.js";
import type { AgentEvent, AgentOutcome } from "./agent-events.js";
import { checkAgentModel, type AgentDefinition } from "./define-agent.js";
import { OwnedClients, type AgentModelRequest } from "./owned-clients.js";
import { createStepMiddleware, StepLimitReached } from "./step-middleware.js";
import type { McpSection } from "../../src/workflow/mcp/mcp-section-schema.js";
import type { McpServers } from "../../src/workflow/mcp/mcp-servers.js";
import { resolveMcpEnv } from "../../src/workflow/mcp/resolve-mcp-env.js";
import { mcpLangChainTools } from "./mcp-tools.js";
import { ApprovalPending, type AgentJournal, type ToolApprover } from "./agent-journal.js";
import { createDurableMiddleware } from "./durable-middleware.js";
import { toolMatcher } from "./tool-matcher.js";

/** Where and how an agent runs. Only `workspace` is required. */
export interface AgentContext {
  /** Folder the agent's file and media tools work in (created when missing); nothing outside it is touched. */
  readonly workspace: string;
  /** A model id to run on instead of the definition's. */
  readonly model?: string;
  /** Model turns before the run stops. Default: the definition's. */
  readonly maxSteps?: number;
  /** Receives every call of the agent and its tools (a CostLedger, whose cap then bounds the run). Default: none. */
  readonly ledger?: UsageRecorder;
  /** Where the gateway is. Default: SVC_BASE_URL and SVC_API_KEY. Ignored for models when `chatModel` is given. */
  readonly gateway?: GatewayConnectionOptions;
  /** Makes every chat model of the run (a workflow step's, billed and retried its way). Default: ChatGateways
   * over `gateway` sharing one connection pool, billed to `ledger`. */
  readonly chatModel?: (request: AgentModelRequest) => BaseChatModel;
  /** Sends the gateway tools' chat calls. Default: the chat core on the agent's own client, billed
   * to `ledger` under the agent's and the tool's names. */
  readonly toolChat?: ToolChat;
  /** Fetches an image the image tools' model gave as a link. Default: the agent's own client's. */
  readonly downloadImage?: (link: string, signal?: AbortSignal) => Promise<MessageImage>;
  /** compose_music's client. Default: one over `gateway`, billed to `ledger`, closed by `close()`. */
  readonly music?: MusicClient;
  /** Records the refund of a failed music job. Default: `ledger.refund` when the ledger is a CostLedger. */
  readonly refundMusic?: (requestId: string) => void;
  /** Further tool settings: fetch limits, time zone, music polling, the media models. */
  readonly toolOptions?: Omit<ToolContext, "workspace" | "chat" | "gateway" | "ledger" | "music" | "refundMusic">;
  /** Cancels every run of the agent. */
  readonly signal?: AbortSignal;
  /** Receives every run's events. */
  readonly onEvent?: (event: AgentEvent) => void;
  /** More MCP servers (an `mcp:` section), every tool of which the agent may call (as `svc-flow agent --mcp FILE` gives). */
  readonly mcp?: McpSection;
  /** Folder relative MCP server paths are read from. Default: the current folder. */
  readonly mcpBaseDir?: string;
  /** Environment `${{ env.NAME }}` in MCP sections reads. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where each model turn and tool result is journaled as it completes, and read back on a resume. Default: none. */
  readonly journal?: AgentJournal;
  /** More tools whose calls need a person's approval (besides the definition's `approve`): names, `server/tool` or `server/*`. */
  readonly approve?: readonly string[];
  /** Asks about a call that needs approval. Default: none, and such a call stops the run (approval_unavailable). */
  readonly approver?: ToolApprover;
}

/** Options of one run. */
export interface AgentRunOptions {
  readonly signal?: AbortSignal;
  /** Receives this run's events (besides the context's `onEvent`). */
  readonly onEvent?: (event: AgentEvent) => void;
  /** LangChain callbacks for the run (a tracer; a parent run's manager, so this run nests under it). */
  readonly callbacks?: Callbacks;
}

/** An agent from a definition, ready to run tasks: LangChain's `createAgent` on ChatGateway with the definition's tools. */
export class AgentRunner {
  readonly definition: AgentDefinition;
  /** The model the agent's turns run on. */
  readonly model: string;
  readonly maxSteps: number;
  readonly tools: readonly StructuredToolInterface[];
  readonly #context: AgentContext;
  readonly #chatModel: (request: AgentModelRequest) => BaseChatModel;
  readonly #owned: OwnedClients;
  /** The MCP servers and their tools, started at the first run and stopped by close(). */
  #mcp: Promise<{ servers: McpServers; tools: StructuredToolInterface[] } | undefined> | undefined;
  /** The emitters of the runs in progress: model warnings go to them. */
  readonly #running = new Set<(event: AgentEvent) => void>();

  constructor(definition: AgentDefinition, context: AgentContext) {
    this.definition = definition;
    this.model = context.model ?? definition.model;
    checkAgentModel(this.model, definition.name);
    this.maxSteps = context.maxSteps ?? definition.maxSteps;
    if (!Number.isSafeInteger(this.maxSteps) || this.maxSteps < 1) {
      throw new ConfigError(`Expected maxSteps to be a whole number >= 1, got ${this.maxSteps}.`);
    }
    this.#context = context;
    this.#owned = new OwnedClients({
      ...context,
      agent: definition.name,
      onWarning: (warning) => this.#warn({ type: "warning", code: warning.code, message: warning.message }),
    });
    this.#chatModel = context.chatModel ?? ((request) => this.#owned.chatModel(request));
    const music = context.music ?? (definition.tools.includes("compose_music") ? this.#owned.music() : undefined);
    const named = definition.tools.filter((tool): tool is ToolName => typeof tool === "string" && !tool.includes("/"));
    const own = definition.tools.filter((tool): tool is StructuredToolInterface => typeof tool !== "string");
    this.tools = [
      ...createTools(named, {
        ...context.toolOptions,
        workspace: context.workspace,
        chat: context.toolChat ?? ((call, signal) => this.#owned.chat(call, signal)),
        downloadImage: context.downloadImage ?? ((link, signal) => this.#owned.downloadImage(link, signal)),
        ...(context.ledger === undefined ? {} : { ledger: context.ledger }),
        ...(music === undefined ? {} : { music }),
        ...(context.refundMusic === undefined ? {} : { refundMusic: context.refundMusic }),
      }),
      ...own,
    ];
  }

  /** Runs one task to an answer or to the step limit; other failures (budget, key, outage, abort) throw. */
  async run(task: string, options: AgentRunOptions = {}): Promise<AgentOutcome> {
    const signal = anySignal(this.#context.signal, options.signal);
    const emit = (event: AgentEvent) => {
      this.#context.onEvent?.(event);
      options.onEvent?.(event);
    };
    await mkdir(this.#context.workspace, { recursive: true });
    this.#mcp ??= this.#startMcp();
    await this.#mcp;
    this.#running.add(emit);
    try {
      return await this.#run(task, signal, emit, options.callbacks);
    } finally {
      this.#running.delete(emit);
    }
  }

  async #run(
    task: string,
    signal: AbortSignal | undefined,
    emit: (event: AgentEvent) => void,
    callbacks: Callbacks | undefined,
  ): Promise<AgentOutcome> {
    // LangChain's agent loop (and LangGraph under it) is loaded when an agent first runs, not on import.
    const { createAgent, createMiddleware, MiddlewareError } = await import("langchain");
    const { middleware, tracker } = createStepMiddleware(createMiddleware, {
      maxSteps: this.maxSteps,
      toolNames: new Set([...this.tools, ...((await this.#mcp)?.tools ?? [])].map((tool) => tool.name)),
      emit,
      ...(signal === undefined ? {} : { signal }),
    });
    const mcpTools = (await this.#mcp)?.tools ?? [];
    const durable = createDurableMiddleware(createMiddleware, {
      needsApproval: toolMatcher([...(this.definition.approve ?? []), ...(this.#context.approve ?? [])]),
      emit,
      ...(this.#context.journal === undefined ? {} : { journal: this.#context.journal }),
      ...(this.#context.approver === undefined ? {} : { approver: this.#context.approver }),
      ...(signal === undefined ? {} : { signal }),
    });
    const agent = createAgent({
      model: this.#chatModel({ model: this.model, maxTokens: this.definition.maxTokens }),
      tools: [...this.tools, ...mcpTools],
      systemPrompt: this.definition.system,
      // The step middleware is outermost, so it counts and reports turns the durable one replays.
      middleware: [middleware, durable],
      ...(this.definition.responseFormat === undefined ? {} : { responseFormat: this.definition.responseFormat }),
    });
    const base = { agent: this.definition.name, model: this.model };
    emit({ type: "start", ...base, task, maxSteps: this.maxSteps, workspace: this.#context.workspace });
    try {
      // The middleware stops the loop at maxSteps; the recursion limit only backs it up.
      const state = (await agent.invoke(
        { messages: [{ role: "user", content: task }] },
        {
          recursionLimit: this.maxSteps * 2 + 10,
          ...(signal === undefined ? {} : { signal }),
          ...(callbacks === undefined ? {} : { callbacks }),
        },
      )) as { messages: BaseMessage[]; structuredResponse?: unknown };
      const answer = finalText(state.messages, state.structuredResponse);
      const structured = state.structuredResponse === undefined ? {} : { structuredResponse: state.structuredResponse };
      emit({ type: "answer", step: tracker.steps, text: answer, ...structured });
      return {
        status: "answered",
        ...base,
        answer,
        ...structured,
        steps: tracker.steps,
        toolCalls: [...tracker.toolCalls],
      };
    } catch (thrown) {
      // A cancelled run throws the signal's reason as it is; callers get the typed error.
      const error =
        signal?.aborted === true ? toAbortedError(signal.reason) : unwrapMiddlewareError(thrown, MiddlewareError);
      const limited = stepLimitMessage(error, tracker.steps, this.maxSteps);
      if (limited !== undefined && signal?.aborted !== true) {
        emit({ type: "stopped", reason: "step_limit", steps: tracker.steps, message: limited });
        return {
          status: "step_limit",
          ...base,
          message: limited,
          steps: tracker.steps,
          toolCalls: [...tracker.toolCalls],
        };
      }
      // A call waiting for a person is not a failure: the caller resumes the run once it is answered.
      if (error instanceof ApprovalPending) throw error;
      emit({
        type: "failed",
        code: error instanceof SvcFlowError ? error.code : "agent_failed",
        message: redactSecrets(error instanceof Error ? error.message : String(error)),
      });
      throw error;
    }
  }

  #warn(event: AgentEvent): void {
    if (this.#running.size === 0) this.#context.onEvent?.(event);
    for (const emit of this.#running) emit(event);
  }

  // The definition's servers give the tools it names; the context's give all theirs.
  async #startMcp(): Promise<{ servers: McpServers; tools: StructuredToolInterface[] } | undefined> {
    const section = { ...this.definition.mcp, ...this.#context.mcp };
    if (Object.keys(section).length === 0) return undefined;
    const { McpServers } = await import("../../src/workflow/mcp/mcp-servers.js");
    const servers = await McpServers.start(resolveMcpEnv(section, this.#context.env ?? process.env), {
      baseDir: this.#context.mcpBaseDir ?? process.cwd(),
      ...(this.#context.signal === undefined ? {} : { signal: this.#context.signal }),
    });
    try {
      const named = this.definition.tools.filter(
        (tool): tool is `${string}/${string}` => typeof tool === "string" && tool.includes("/"),
      );
      const all = Object.keys(this.#context.mcp ?? {}).map((server) => `${server}/*`);
      return { servers, tools: mcpLangChainTools(servers, [...named, ...all]) };
    } catch (error) {
      await servers.close();
      throw error;
    }
  }

  /** Closes the connections the agent opened itself (clients passed in are left open) and stops its MCP servers. */
  async close(): Promise<void> {
    await this.#owned.close();
    const mcp = await this.#mcp?.catch(() => undefined);
    await mcp?.servers.close();
  }
}

// LangChain wraps whatever passes through a middleware hook (ours wraps every call), hiding the typed error.
function unwrapMiddlewareError(
  error: unknown,
  wrapper: { isInstance(value: unknown): value is { cause?: unknown } },
): unknown {
  let current = error;
  while (wrapper.isInstance(current) && current.cause !== undefined) current = current.cause;
  return current;
}

// With a response format the checked object is the answer (LangChain's closing message only restates it).
function finalText(messages: readonly BaseMessage[], structured: unknown): string {
  if (structured !== undefined) return JSON.stringify(structured);
  const last = [...messages].reverse().find((message) => AIMessage.isInstance(message));
  return last?.text.trim() ?? "";
}

// LangGraph's own guard (GraphRecursionError) says the same thing as ours, less clearly.
function stepLimitMessage(error: unknown, steps: number, maxSteps: number): string | undefined {
  if (error instanceof StepLimitReached) return error.message;
  if (error instanceof Error && error.name === "GraphRecursionError") {
    return `Stopped after ${steps} steps without a final answer (the step limit is ${maxSteps}). Raise the step limit (--max-steps) or make the task more direct.`;
  }
  return undefined;
}

function anySignal(...signals: ReadonlyArray<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
}
