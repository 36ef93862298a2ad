import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { MessageImage } from "../../src/chat/decode-image-reply.js";
import { ChatGateway } from "../../src/langchain/chat-gateway.js";
import type { WarningHandler } from "../../src/chat/parameter-warning.js";
import { GatewayClient } from "../../src/gateway/gateway-client.js";
import { MusicClient } from "../../src/gateway/music-client.js";
import type { UsageRecorder } from "../../src/gateway/usage-recorder.js";
import {
  taggedRecorder,
  type GatewayConnectionOptions,
  type ToolChatCall,
} from "../../tools/support/gateway-access.js";
import { callChat } from "../../src/chat/call-chat.js";
import type { ChatReply } from "../../src/chat/chat-reply.js";

/** What a chat model factory is asked for: the agent's own turns (no `tool`) or a gateway tool's call. */
export interface AgentModelRequest {
  readonly model: string;
  readonly maxTokens?: number;
  /** The gateway tool asking; absent for the agent's own turns. */
  readonly tool?: string;
}

/**
 * The clients an agent opens for itself when the caller gives none: one connection pool shared by
 * its own turns and its tools' models, and a music client, all billed to `ledger` under the
 * agent's name and closed together.
 */
export class OwnedClients {
  readonly #gateway: GatewayConnectionOptions | undefined;
  readonly #ledger: UsageRecorder | undefined;
  readonly #agent: string;
  readonly #onWarning: WarningHandler | undefined;
  #client: GatewayClient | undefined;
  #music: MusicClient | undefined;

  constructor(options: {
    readonly gateway?: GatewayConnectionOptions;
    readonly ledger?: UsageRecorder;
    readonly agent: string;
    /** Receives the models' warnings. Default: `process.emitWarning`. */
    readonly onWarning?: WarningHandler;
  }) {
    this.#gateway = options.gateway;
    this.#ledger = options.ledger;
    this.#agent = options.agent;
    this.#onWarning = options.onWarning;
  }

  /** A ChatGateway on the shared pool, tagged with the agent (and the tool asking, if any). */
  chatModel(request: AgentModelRequest): BaseChatModel {
    this.#client ??= new GatewayClient({ ...this.#gateway });
    return new ChatGateway({
      model: request.model,
      client: this.#client,
      ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
      ...(this.#ledger === undefined ? {} : { ledger: this.#ledger }),
      usageTags: { agent: this.#agent, ...(request.tool === undefined ? {} : { tool: request.tool }) },
      ...(this.#onWarning === undefined ? {} : { onWarning: this.#onWarning }),
    });
  }

  /** A gateway tool's chat call through the chat core on the shared pool, tagged with the agent and the tool. */
  chat(call: ToolChatCall, signal?: AbortSignal): Promise<ChatReply> {
    this.#client ??= new GatewayClient({ ...this.#gateway });
    const { tool, ...wire } = call;
    return callChat(wire, {
      client: this.#client,
      ...(this.#ledger === undefined ? {} : { ledger: this.#ledger }),
      usageTags: { agent: this.#agent, tool },
      ...(signal === undefined ? {} : { signal }),
      ...(this.#onWarning === undefined ? {} : { onWarning: this.#onWarning }),
    });
  }

  /** An image a tool's model gave as a link, downloaded through the shared pool's client. */
  downloadImage(link: string, signal?: AbortSignal): Promise<MessageImage> {
    this.#client ??= new GatewayClient({ ...this.#gateway });
    return this.#client.downloadImage(link, signal === undefined ? {} : { signal });
  }

  /** The music client, made on first use. */
  music(): MusicClient {
    this.#music ??= new MusicClient({
      ...this.#gateway,
      ...(this.#ledger === undefined
        ? {}
        : { recorder: taggedRecorder(this.#ledger, { agent: this.#agent, tool: "compose_music" }) }),
    });
    return this.#music;
  }

  /** Closes whatever was opened. */
  async close(): Promise<void> {
    const open = [this.#client, this.#music];
    this.#client = undefined;
    this.#music = undefined;
    await Promise.all(open.map((resource) => resource?.close()));
  }
}
