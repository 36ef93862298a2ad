import type { BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import type { Dispatcher } from "undici";
import { getModel, type ModelInfo } from "../catalog/models.js";
import { ConfigError } from "../errors.js";
import { GatewayClient } from "../gateway/gateway-client.js";
import type { UsageRecorder } from "../gateway/usage-recorder.js";
import { RETRY_DEFAULTS, resolvePolicy, type RetryPolicy } from "../scheduling/retry.js";
import { Scheduler } from "../scheduling/scheduler.js";
import { validateSettings } from "../chat/apply-model-rules.js";
import { WarningOnce, type WarningHandler } from "../chat/parameter-warning.js";
import type { SlotSource } from "../chat/attempt-hold.js";
import type { ChatRetry } from "../chat/call-chat.js";

/** Options of ChatGateway; only `model` is required. */
export interface ChatGatewayOptions extends BaseChatModelParams {
  /** A catalogue id, e.g. "alpha-sonnet-4-6"; unknown ids are refused at once. */
  model: string;
  /** Default: `SVC_API_KEY`. Ignored when `client` is given. */
  apiKey?: string;
  /** The versioned root ending in `/v1`. Default: `SVC_BASE_URL`. Ignored when `client` is given. */
  baseURL?: string;
  /** 0..1. Dropped (with a warning) for models that reject sampling. */
  temperature?: number;
  /** 0..1. Dropped (with a warning) for models that reject sampling. */
  topP?: number;
  /** Output budget; sent as the field each model takes, raised to a model's minimum. */
  maxTokens?: number;
  stop?: string[];
  /** `invoke` streams the reply, so callback handlers get each token. Default false. */
  streaming?: boolean;
  /** Models to move to, in order, when one fails after its retries, asks for a long wait, or
   * comes back empty. Each gets the same settings, re-mapped by its own rules. Default none. */
  fallbacks?: string[];
  /** Retries per model after the first attempt. Default 3. */
  maxRetries?: number;
  /** Finer retry control (backoff, Retry-After threshold); `maxRetries` wins for the count. */
  retry?: RetryPolicy;
  /** Requests in flight at once through this model's own scheduler, and the connections of its own
   * client. Default unlimited. Ignored when `scheduler` is given. */
  maxConcurrency?: number;
  /** Overall limit of one call, retries and fallbacks included. Default none. */
  timeoutMs?: number;
  /** Until response headers or the first stream event, per attempt. Default the client's (120 s). */
  firstByteTimeoutMs?: number;
  /** Between stream events, per attempt. Default the client's (60 s). */
  chunkTimeoutMs?: number;
  /** Receives every attempt: reserve before sending, settle after. Default none. */
  ledger?: UsageRecorder;
  /** Tags for the ledger's entries (LangChain's own `tags` stay for callbacks). */
  usageTags?: Record<string, string>;
  /** A client to share; default one of its own (closed by `close()`). */
  client?: GatewayClient;
  /** A scheduler to share across models and calls; default one of its own. */
  scheduler?: SlotSource;
  /** An undici dispatcher for the own client. */
  dispatcher?: Dispatcher;
  /** Receives warnings (renamed, dropped, raised parameters, fallbacks, usage doubts), each once
   * per instance. Default `process.emitWarning`. */
  onWarning?: WarningHandler;
  /** Told before each wait for a retry of the same model, with the wait in ms. */
  onRetry?: (retry: ChatRetry) => void;
}

/** The options with defaults applied once. */
export interface ResolvedChatGatewayOptions {
  readonly chain: readonly ModelInfo[];
  readonly client: GatewayClient;
  readonly ownsClient: boolean;
  readonly scheduler: SlotSource;
  readonly retry: RetryPolicy;
  readonly timeoutMs?: number;
  readonly ledger?: UsageRecorder;
  readonly usageTags?: Readonly<Record<string, string>>;
  readonly warnings: WarningOnce;
  readonly onRetry?: (retry: ChatRetry) => void;
}

/** Checks the options and applies defaults; bad values are refused here, before any request. */
export function resolveChatGatewayOptions(options: ChatGatewayOptions): ResolvedChatGatewayOptions {
  if (typeof options.model !== "string" || options.model.length === 0) {
    throw new ConfigError('ChatGateway needs a model, e.g. new ChatGateway({ model: "alpha-sonnet-4-6" }).');
  }
  const chain = [options.model, ...(options.fallbacks ?? [])]
    .filter((id, position, ids) => ids.indexOf(id) === position)
    .map((id) => getModel(id));
  validateSettings(options);
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new ConfigError(`Expected timeoutMs to be > 0, got ${options.timeoutMs}.`);
  }
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) {
    throw new ConfigError(`Expected maxRetries to be an integer >= 0, got ${options.maxRetries}.`);
  }
  const retry = resolvePolicy({
    ...options.retry,
    attempts:
      options.maxRetries === undefined ? (options.retry?.attempts ?? RETRY_DEFAULTS.attempts) : options.maxRetries + 1,
  });
  const client =
    options.client ??
    new GatewayClient({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
      ...(options.firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs: options.firstByteTimeoutMs }),
      ...(options.chunkTimeoutMs === undefined ? {} : { chunkTimeoutMs: options.chunkTimeoutMs }),
      // Concurrency is the one knob: the pool holds as many connections as calls may be in flight
      // (a bad value is refused below, by the scheduler, with its own name).
      ...(isCount(options.maxConcurrency) ? { connections: options.maxConcurrency } : {}),
    });
  const scheduler =
    options.scheduler ??
    new Scheduler(options.maxConcurrency === undefined ? {} : { concurrency: options.maxConcurrency });
  return {
    chain,
    client,
    ownsClient: options.client === undefined,
    scheduler,
    retry,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.ledger === undefined ? {} : { ledger: options.ledger }),
    ...(options.usageTags === undefined ? {} : { usageTags: { ...options.usageTags } }),
    warnings: new WarningOnce(options.onWarning),
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
  };
}

function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 1;
}
