import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { getModel, type Capabilities } from "../../src/catalog/models.js";
import { ChatGateway } from "../../src/langchain/chat-gateway.js";
import type { CostLedger } from "../../src/cost/cost-ledger.js";
import { ConfigError } from "../../src/errors.js";
import { MusicClient } from "../../src/gateway/music-client.js";
import type { UsageRecorder } from "../../src/gateway/usage-recorder.js";

/** Where the gateway is, when the caller does not hand the tools ready clients. */
export interface GatewayConnectionOptions {
  /** Default: `SVC_API_KEY`. */
  readonly apiKey?: string;
  /** The versioned root ending in `/v1`. Default: `SVC_BASE_URL`. */
  readonly baseURL?: string;
}

/** What a gateway tool asks of a chat model factory. */
export interface ToolModelRequest {
  /** The catalogue id. */
  readonly model: string;
  /** The tool asking, for tagging its spend. */
  readonly tool: string;
  /** The output budget the tool wants (text replies); undefined for image models. */
  readonly maxTokens?: number;
}

/** Makes the chat model a gateway tool calls; the caller decides client, retries and billing. */
export type ToolChatModelFactory = (request: ToolModelRequest) => BaseChatModel;

/** How a gateway tool reaches the gateway and who pays: what the registry passes from ToolContext. */
export interface GatewayAccess {
  /** Makes the chat model for a call. Default: a ChatGateway over `gateway`, billed to `ledger`,
   * made for one call and closed after it. */
  readonly chatModel?: ToolChatModelFactory;
  /** Used when `chatModel` or `music` is absent. Default: the environment. */
  readonly gateway?: GatewayConnectionOptions;
  /** Receives every call the tool makes (a CostLedger, or a tagged recorder of one). */
  readonly ledger?: UsageRecorder;
}

const ABILITIES: Partial<Record<keyof Capabilities, string>> = {
  imageGeneration: "generate images",
  vision: "take image input",
  audio: "take audio input",
};

/** Returns the model a gateway tool was given, after checking the catalogue says it can do the job. */
export function checkToolModel(model: string, needs: keyof Capabilities, toolName: string, example: string): string {
  const { capabilities } = getModel(model);
  const problem = !capabilities[needs]
    ? `it does not ${ABILITIES[needs] ?? `have the ${needs} capability`}`
    : needs !== "imageGeneration" && capabilities.imageGeneration
      ? "it answers with images, not text"
      : undefined;
  if (problem !== undefined) {
    throw new ConfigError(`The ${toolName} tool cannot use ${model}: ${problem}. Use a model that does, e.g. ${example}.`, {
      code: "invalid_parameter",
    });
  }
  return model;
}

/** Output budgets of the text replies the tools ask for; they also bound what a budget reserves. */
export const TOOL_REPLY_MAX_TOKENS = 1024;

/** Runs `use` with a chat model for `model`, closing the model afterwards when it was made here. */
export async function withChatModel<T>(
  access: GatewayAccess,
  model: string,
  toolName: string,
  use: (chatModel: BaseChatModel) => Promise<T>,
  settings: { readonly maxTokens?: number } = {},
): Promise<T> {
  if (access.chatModel !== undefined) return use(access.chatModel({ model, tool: toolName, ...settings }));
  const owned = new ChatGateway({
    model,
    ...access.gateway,
    ...(access.ledger === undefined ? {} : { ledger: access.ledger }),
    ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
    usageTags: { tool: toolName },
  });
  try {
    return await use(owned);
  } finally {
    await owned.close();
  }
}

/** Runs `use` with a music client: the one given, or one over `gateway` closed afterwards. */
export async function withMusicClient<T>(
  access: GatewayAccess & { readonly music?: MusicClient },
  use: (music: MusicClient) => Promise<T>,
): Promise<T> {
  if (access.music !== undefined) return use(access.music);
  const owned = new MusicClient({
    ...access.gateway,
    ...(access.ledger === undefined ? {} : { recorder: taggedRecorder(access.ledger, { tool: "compose_music" }) }),
  });
  try {
    return await use(owned);
  } finally {
    await owned.close();
  }
}

/** The recorder with `tags` added to its entries when it can tag (a CostLedger), else as it is. */
export function taggedRecorder(ledger: UsageRecorder, tags: Readonly<Record<string, string>>): UsageRecorder {
  const candidate = ledger as UsageRecorder & Partial<Pick<CostLedger, "tagged">>;
  return typeof candidate.tagged === "function" ? candidate.tagged(tags) : ledger;
}

/** The refund hook for failed music jobs: the one given, else the ledger's own when it is a CostLedger. */
export function musicRefund(
  ledger: UsageRecorder | undefined,
  refundMusic: ((requestId: string) => void) | undefined,
): ((requestId: string) => void) | undefined {
  if (refundMusic !== undefined) return refundMusic;
  const candidate = ledger as Partial<Pick<CostLedger, "refund">> | undefined;
  return typeof candidate?.refund === "function" ? (requestId) => void candidate.refund!(requestId) : undefined;
}
