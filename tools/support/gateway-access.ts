import { getModel, type Capabilities } from "../../src/catalog/models.js";
import { callChat, type ChatCall } from "../../src/chat/call-chat.js";
import type { ChatReply } from "../../src/chat/chat-reply.js";
import { imagesFromReply, type MessageImage } from "../../src/chat/decode-image-reply.js";
import { GatewayClient } from "../../src/gateway/gateway-client.js";
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

/** A gateway tool's chat call: the wire call (output budget set for text replies, absent for
 * image models) and the tool asking, for tagging its spend. */
export type ToolChatCall = Omit<ChatCall, "stream"> & { readonly tool: string };

/** Sends a gateway tool's chat call; the caller decides client, retries and billing. */
export type ToolChat = (call: ToolChatCall, signal?: AbortSignal) => Promise<ChatReply>;

/** How a gateway tool reaches the gateway and who pays: what the registry passes from ToolContext. */
export interface GatewayAccess {
  /** Sends the tool's chat calls. Default: the chat core over a client of `gateway`, billed to
   * `ledger`, opened for one call and closed after it. */
  readonly chat?: ToolChat;
  /** Used when `chat` or `music` is absent. Default: the environment. */
  readonly gateway?: GatewayConnectionOptions;
  /** Receives every call the tool makes (a CostLedger, or a tagged recorder of one). */
  readonly ledger?: UsageRecorder;
  /** Fetches an image a model gave as a link. Default: the tool's own client's downloadImage (with `chat` given and
   * this absent, a linked image is not fetched). */
  readonly downloadImage?: (link: string, signal?: AbortSignal) => Promise<MessageImage>;
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
    throw new ConfigError(
      `The ${toolName} tool cannot use ${model}: ${problem}. Use a model that does, e.g. ${example}.`,
      {
        code: "invalid_parameter",
      },
    );
  }
  return model;
}

/** Output budgets of the text replies the tools ask for; they also bound what a budget reserves. */
export const TOOL_REPLY_MAX_TOKENS = 1024;

/** Sends a tool's chat call through `access.chat`, or through a client of its own closed after it. */
export async function toolChat(access: GatewayAccess, call: ToolChatCall, signal?: AbortSignal): Promise<ChatReply> {
  return (await withToolClient(access, call, signal, async () => undefined)).reply;
}

/** An image tool's call: the reply, and its image downloaded when the model gave it as a link instead of inline. */
export async function toolImageChat(
  access: GatewayAccess,
  call: ToolChatCall,
  signal?: AbortSignal,
): Promise<{ reply: ChatReply; linked?: MessageImage }> {
  return withToolClient(access, call, signal, async (reply, client) => {
    const link = imagesFromReply(reply.content).length === 0 ? reply.imageLinks[0] : undefined;
    const download =
      access.downloadImage ??
      (client === undefined
        ? undefined
        : (url: string, abort?: AbortSignal) =>
            client.downloadImage(url, abort === undefined ? {} : { signal: abort }));
    return link === undefined || download === undefined ? undefined : download(link, signal);
  });
}

// The call through `access.chat`, or through a client of its own that stays open for `then` and is closed after.
async function withToolClient<T>(
  access: GatewayAccess,
  call: ToolChatCall,
  signal: AbortSignal | undefined,
  then: (reply: ChatReply, client?: GatewayClient) => Promise<T>,
): Promise<{ reply: ChatReply; linked?: T }> {
  if (access.chat !== undefined) {
    const reply = await access.chat(call, signal);
    return withLinked(reply, await then(reply));
  }
  const client = new GatewayClient({ ...access.gateway });
  const { tool, ...wire } = call;
  try {
    const reply = await callChat(wire, {
      client,
      ...(access.ledger === undefined ? {} : { ledger: access.ledger }),
      usageTags: { tool },
      ...(signal === undefined ? {} : { signal }),
    });
    return withLinked(reply, await then(reply, client));
  } finally {
    await client.close();
  }
}

function withLinked<T>(reply: ChatReply, linked: T | undefined): { reply: ChatReply; linked?: T } {
  return linked === undefined ? { reply } : { reply, linked };
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
