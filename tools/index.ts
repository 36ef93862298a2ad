import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Dispatcher } from "undici";
import { ConfigError } from "../src/errors.js";
import type { MusicClient } from "../src/gateway/music-client.js";
import type { UsageRecorder } from "../src/gateway/usage-recorder.js";
import { createCalculatorTool } from "./calculator.js";
import { createComposeMusicTool } from "./compose-music.js";
import { createCurrentTimeTool } from "./current-time.js";
import { createDescribeImageTool } from "./describe-image.js";
import { createEditImageTool } from "./edit-image.js";
import { createFetchUrlTool } from "./fetch-url.js";
import { createGenerateImageTool } from "./generate-image.js";
import { createListFilesTool } from "./list-files.js";
import { createReadFileTool } from "./read-file.js";
import { createUnderstandAudioTool } from "./understand-audio.js";
import { createWriteFileTool } from "./write-file.js";
import { requireWorkspace } from "./support/check-option.js";
import { isToolName, listToolNames, type ToolName } from "./tool-names.js";
import type { GatewayAccess, GatewayConnectionOptions, ToolChat } from "./support/gateway-access.js";
import type { MessageImage } from "../src/chat/decode-image-reply.js";
import type { MusicJobLog } from "./support/music-job-log.js";

/**
 * What tools may need from the run that creates them. Every field is optional; a tool that needs one
 * that is missing fails at creation with a ConfigError naming the field. The gateway tools
 * (generate_image, edit_image, describe_image, understand_audio, compose_music) read the gateway
 * fields below; pass a `ledger` so their calls are billed with the rest of the run.
 */
export interface ToolContext {
  /** Folder the file tools (read_file, write_file, list_files) are confined to. */
  workspace?: string;
  /** read_file: largest file read whole, and the most text one call returns. Default 1 MiB. */
  maxReadBytes?: number;
  /** write_file: largest content one call may write. Default 10 MiB. */
  maxWriteBytes?: number;
  /** fetch_url: most body bytes read. Default 256 KiB. */
  fetchMaxBytes?: number;
  /** fetch_url: time for the whole fetch. Default 15000 ms. */
  fetchTimeoutMs?: number;
  /** fetch_url: fetch loopback, private and link-local addresses (localhost, 10.x, 169.254.169.254, ...). Default false. */
  allowPrivateNetwork?: boolean;
  /** fetch_url: undici dispatcher (proxy, test agent); host names then resolve in it, so only literal IPs are
   * checked. Default: a shared Agent that refuses private addresses (with allowPrivateNetwork, undici's global one). */
  dispatcher?: Dispatcher;
  /** current_time: zone used when the model names none. Default: the machine's zone. */
  timeZone?: string;
  /** current_time: the clock. Default `() => new Date()`. */
  now?: () => Date;
  /** Gateway tools: sends their chat calls. Default: the chat core over a client of `gateway`,
   * billed to `ledger`, opened for one call and closed after it. */
  chat?: ToolChat;
  /** Gateway tools: where the gateway is when `chat`/`music` are not given. Default: SVC_BASE_URL, SVC_API_KEY. */
  gateway?: GatewayConnectionOptions;
  /** Gateway tools: receives every call they make, so they bill into the run's ledger. Default: none. */
  ledger?: UsageRecorder;
  /** Image tools: fetch an image the model gave as a link. Default: their own client's (when `chat` is not given). */
  downloadImage?: (link: string, signal?: AbortSignal) => Promise<MessageImage>;
  /** compose_music: the music client. Default: one over `gateway`, billed to `ledger`, per call. */
  music?: MusicClient;
  /** compose_music: records the refund of a failed music job. Default: `ledger.refund` when `ledger` is a CostLedger. */
  refundMusic?: (requestId: string) => void;
  /** compose_music: keeps the jobs it starts (a workflow step's journal) so a call repeated after a resume looks its
   * job up instead of paying again. Default: none. */
  musicJobs?: MusicJobLog;
  /** compose_music: how long to wait for the clips. Default 300000 ms. */
  musicTimeoutMs?: number;
  /** compose_music: the first wait between polls (it grows by half each poll). Default 2000 ms. */
  musicPollIntervalMs?: number;
  /** Gateway tools: the models used. Default image gamma-2.5-flash-image, vision alpha-sonnet-4-6, audio gamma-2.5-flash. */
  models?: { image?: string; vision?: string; audio?: string };
}

function gatewayAccess(context: ToolContext): GatewayAccess {
  return {
    ...(context.chat === undefined ? {} : { chat: context.chat }),
    ...(context.gateway === undefined ? {} : { gateway: context.gateway }),
    ...(context.ledger === undefined ? {} : { ledger: context.ledger }),
    ...(context.downloadImage === undefined ? {} : { downloadImage: context.downloadImage }),
  };
}

const FACTORIES = {
  calculator: () => createCalculatorTool(),
  compose_music: (context: ToolContext) =>
    createComposeMusicTool({
      ...gatewayAccess(context),
      workspace: requireWorkspace(context.workspace, "compose_music"),
      ...(context.music === undefined ? {} : { music: context.music }),
      ...(context.refundMusic === undefined ? {} : { refundMusic: context.refundMusic }),
      ...(context.musicJobs === undefined ? {} : { jobs: context.musicJobs }),
      timeoutMs: context.musicTimeoutMs,
      pollIntervalMs: context.musicPollIntervalMs,
    }),
  current_time: (context: ToolContext) => createCurrentTimeTool({ timeZone: context.timeZone, now: context.now }),
  describe_image: (context: ToolContext) =>
    createDescribeImageTool({
      ...gatewayAccess(context),
      workspace: requireWorkspace(context.workspace, "describe_image"),
      model: context.models?.vision,
    }),
  edit_image: (context: ToolContext) =>
    createEditImageTool({
      ...gatewayAccess(context),
      workspace: requireWorkspace(context.workspace, "edit_image"),
      model: context.models?.image,
    }),
  fetch_url: (context: ToolContext) =>
    createFetchUrlTool({
      maxBytes: context.fetchMaxBytes,
      timeoutMs: context.fetchTimeoutMs,
      allowPrivateNetwork: context.allowPrivateNetwork,
      dispatcher: context.dispatcher,
    }),
  generate_image: (context: ToolContext) =>
    createGenerateImageTool({
      ...gatewayAccess(context),
      workspace: requireWorkspace(context.workspace, "generate_image"),
      model: context.models?.image,
    }),
  list_files: (context: ToolContext) =>
    createListFilesTool({ workspace: requireWorkspace(context.workspace, "list_files") }),
  read_file: (context: ToolContext) =>
    createReadFileTool({
      workspace: requireWorkspace(context.workspace, "read_file"),
      maxBytes: context.maxReadBytes,
    }),
  understand_audio: (context: ToolContext) =>
    createUnderstandAudioTool({
      ...gatewayAccess(context),
      workspace: requireWorkspace(context.workspace, "understand_audio"),
      model: context.models?.audio,
    }),
  write_file: (context: ToolContext) =>
    createWriteFileTool({
      workspace: requireWorkspace(context.workspace, "write_file"),
      maxBytes: context.maxWriteBytes,
    }),
} satisfies Record<ToolName, (context: ToolContext) => StructuredToolInterface>;

/** Creates the named tools, in the order given; an unknown name is a ConfigError listing the known ones. */
export function createTools(names: readonly string[], context: ToolContext = {}): StructuredToolInterface[] {
  const unknown = names.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `Unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `"${name}"`).join(", ")}. ` +
        `Known tools: ${listToolNames().join(", ")}.`,
      { code: "unknown_tool" },
    );
  }
  // A name listed twice would give the model two identical tools; once is what was meant.
  return [...new Set(names as readonly ToolName[])].map((name) => FACTORIES[name](context));
}

export {
  createCalculatorTool,
  createComposeMusicTool,
  createCurrentTimeTool,
  createDescribeImageTool,
  createEditImageTool,
  createFetchUrlTool,
  createGenerateImageTool,
  createListFilesTool,
  createReadFileTool,
  createUnderstandAudioTool,
  createWriteFileTool,
};
export { isToolName, listToolNames, TOOL_NAMES, type ToolName } from "./tool-names.js";
export type { ComposeMusicToolOptions } from "./compose-music.js";
export type { CurrentTimeToolOptions } from "./current-time.js";
export type { DescribeImageToolOptions } from "./describe-image.js";
export type { EditImageToolOptions } from "./edit-image.js";
export type { GenerateImageToolOptions } from "./generate-image.js";
export type { GatewayConnectionOptions, ToolChat, ToolChatCall } from "./support/gateway-access.js";
export type { UnderstandAudioToolOptions } from "./understand-audio.js";
export type { FetchUrlToolOptions } from "./fetch-url.js";
export type { ListFilesToolOptions } from "./list-files.js";
export type { ReadFileToolOptions } from "./read-file.js";
export type { WriteFileToolOptions } from "./write-file.js";
