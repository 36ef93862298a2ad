import type { Dispatcher } from "undici";
import { ParameterError, redactSecrets, type GatewayIds } from "../errors.js";
import { callHeaders, type CallHeaderOptions } from "./call-headers.js";
import { Readable } from "node:stream";
import { bodyKind } from "./body-kind.js";
import { createChatStream, isEventStream, type ChatStream } from "./chat-stream.js";
import { type DownloadedImage, downloadImage, type ImageDownloadOptions } from "./download-image.js";
import { errorFromResponse } from "./error-from-response.js";
import { wasReplayed } from "./gateway-ids.js";
import { foldStreamReply } from "./fold-stream-reply.js";
import { HttpTransport, invalidResponse, jsonBody, type OpenResponse } from "./http-transport.js";
import { OwnedAgent } from "./owned-agent.js";
import { positiveInteger, positiveNumber } from "./positive-number.js";
import { readEnv } from "./read-env.js";
import { failedFinishBody, failedFinishReason } from "./stream-ending.js";
import { isChatRequest, isChatResponse, isErrorReply } from "./wire-guards.js";
import {
  chatRequestSchema,
  chatResponseSchema,
  modelListSchema,
  type ChatRequest,
  type ChatResponse,
  type ModelList,
} from "./wire.js";

/** Options of GatewayClient; every field is optional. */
export interface GatewayClientOptions {
  /** The API key (`sk-...`). Default: `SVC_API_KEY`. */
  apiKey?: string;
  /** The versioned root, ending in `/v1`. Default: `SVC_BASE_URL`. */
  baseURL?: string;
  /** An undici dispatcher to send through. Default: a keep-alive Agent owned (and closed) by the client. */
  dispatcher?: Dispatcher;
  /** Connect timeout of the client's own Agent (ignored with `dispatcher`). Default 10_000. */
  connectTimeoutMs?: number;
  /** Until response headers, and for streams until the first event. Default 120_000. A reply that is not
   * streamed is timed by undici's own timers (headersTimeout, bodyTimeout), checked about twice a second. */
  firstByteTimeoutMs?: number;
  /** Between stream events (SSE comments do not count), and between body chunks of JSON responses. Default 60_000. */
  chunkTimeoutMs?: number;
  /** Most connections per origin of the client's own Agent. Default: no limit, so there is one connection per call
   * in flight and the caller's concurrency (ChatGateway's `maxConcurrency`) is the one knob. */
  connections?: number;
}

/** Per-call options: a signal, extra headers and the call's idempotency key (see CallHeaderOptions). */
export interface CallOptions extends CallHeaderOptions {
  signal?: AbortSignal;
  /** Sends the call through this dispatcher instead of the client's (e.g. a view of it that adds headers). */
  dispatcher?: Dispatcher;
}

/** Options of one streamed call. */
export interface StreamCallOptions extends CallOptions {
  /** Keep the chunks for a StreamError's `partial` (default true). A caller that gathers the
   * reply itself turns it off, so a long stream holds nothing it does not need. */
  keepPartial?: boolean;
}

/** Defaults applied once, here. */
export const GATEWAY_CLIENT_DEFAULTS = {
  connectTimeoutMs: 10_000,
  firstByteTimeoutMs: 120_000,
  chunkTimeoutMs: 60_000,
} as const;

/** The gateway's chat and model endpoints over undici; one attempt per call (retries live in scheduling). */
export class GatewayClient {
  /** The versioned root, ending in `/v1`. */
  readonly baseURL: string;
  /** The root without `/v1`, where the music interface lives. */
  readonly rootURL: string;
  readonly #apiKey: string;
  readonly #transport: HttpTransport;
  readonly #ownedAgent: OwnedAgent | undefined;
  readonly #dispatcher: Dispatcher | OwnedAgent;
  readonly #chatURL: string;
  readonly #firstByteTimeoutMs: number;

  constructor(options: GatewayClientOptions = {}) {
    const connection = readEnv({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    });
    const connectTimeoutMs = positiveNumber(
      "connectTimeoutMs",
      options.connectTimeoutMs ?? GATEWAY_CLIENT_DEFAULTS.connectTimeoutMs,
    );
    const firstByteTimeoutMs = positiveNumber(
      "firstByteTimeoutMs",
      options.firstByteTimeoutMs ?? GATEWAY_CLIENT_DEFAULTS.firstByteTimeoutMs,
    );
    const chunkTimeoutMs = positiveNumber(
      "chunkTimeoutMs",
      options.chunkTimeoutMs ?? GATEWAY_CLIENT_DEFAULTS.chunkTimeoutMs,
    );
    const connections = options.connections === undefined ? null : positiveInteger("connections", options.connections);

    this.baseURL = connection.baseURL;
    this.rootURL = connection.rootURL;
    this.#chatURL = `${this.baseURL}/chat/completions`;
    this.#firstByteTimeoutMs = firstByteTimeoutMs;
    this.#apiKey = connection.apiKey;
    this.#ownedAgent =
      options.dispatcher === undefined
        ? new OwnedAgent({ connections, connect: { timeout: connectTimeoutMs } })
        : undefined;
    this.#dispatcher = options.dispatcher ?? (this.#ownedAgent as OwnedAgent);
    this.#transport = new HttpTransport({
      apiKey: connection.apiKey,
      dispatcher: this.#dispatcher,
      firstByteTimeoutMs,
      chunkTimeoutMs,
    });
  }

  /** One non-streamed chat completion; `replayed` is true when the gateway answered from its
   * idempotency store (the call was billed once, by the first request with its key). */
  async chat(
    request: ChatRequest,
    options: CallOptions = {},
  ): Promise<{ response: ChatResponse; ids: GatewayIds; replayed: boolean }> {
    const body = checkRequest(request.stream === false ? request : { ...request, stream: false });
    const opened = await this.#transport.open({
      method: "POST",
      url: this.#chatURL,
      json: body,
      headers: callHeaders(options),
      signal: options.signal,
      dispatcher: options.dispatcher,
      readWhole: true,
    });
    const { value, ids, status, headers } = isEventStream(opened.headers)
      ? { ...opened, value: await foldStreamReply(await this.#streamOf(opened)) }
      : await this.#readWhole(opened);
    // Some relays answer 200 with an error body (no choices); its message and code still count.
    if (isErrorReply(value)) throw errorFromResponse({ status, headers, body: value, apiKey: this.#apiKey });
    const response = isChatResponse(value) ? value : checkResponse(value, ids, status);
    // A body without a choice is no answer, whatever else it holds (an empty one is not the reply).
    if (response.choices.length === 0)
      throw invalidResponse(
        `The chat response has no choices: ${redactSecrets(JSON.stringify(value)?.slice(0, 160) ?? "")}`,
        ids,
        status,
      );
    const failed = failedFinishReason(response.choices);
    if (failed !== undefined) throw errorFromResponse({ status, headers, body: failedFinishBody(failed) });
    return { response, ids, replayed: wasReplayed(headers) };
  }

  // A body is JSON or events by its first bytes, whatever its content type says (relays label event
  // streams application/json or text/plain).
  async #readWhole(
    opened: OpenResponse,
  ): Promise<{ value: unknown } & Pick<OpenResponse, "ids" | "status" | "headers">> {
    const bytes = await this.#transport.readBody(opened);
    if (bodyKind([bytes]) !== "events") return jsonBody(bytes, opened);
    const value = await foldStreamReply(await this.#streamOf({ ...opened, body: Readable.from([bytes]) }));
    return { ...opened, value };
  }

  // A relay that streams whatever it was asked: its events, read by the stream reader (errors inside included).
  #streamOf(opened: OpenResponse): Promise<ChatStream> {
    // As for a stream asked for: the first event within the first-byte timeout (the reader times the rest).
    opened.watchdog.arm(this.#firstByteTimeoutMs, "the first stream event");
    return createChatStream(opened, {
      chunkTimeoutMs: this.#transport.chunkTimeoutMs,
      apiKey: this.#apiKey,
      keepPartial: false,
    });
  }

  /** One streamed chat completion; resolves once the 200 arrived, rejects with a typed error otherwise. */
  async chatStream(request: ChatRequest, options: StreamCallOptions = {}): Promise<ChatStream> {
    // Usage arrives only in a final usage chunk, and only when asked for.
    const body = checkRequest({
      ...request,
      stream: true,
      stream_options: request.stream_options ?? { include_usage: true },
    });
    const opened = await this.#transport.open({
      method: "POST",
      url: this.#chatURL,
      json: body,
      accept: "text/event-stream",
      headers: callHeaders(options),
      ...sendOptionsOf(options),
    });
    return createChatStream(opened, {
      chunkTimeoutMs: this.#transport.chunkTimeoutMs,
      apiKey: this.#apiKey,
      keepPartial: options.keepPartial ?? true,
    });
  }

  /** Downloads an image a reply gave as a link (see downloadImage): a link on the gateway's own
   * origin goes through this client's connections, any other only to public addresses. */
  async downloadImage(link: string, options: ImageDownloadOptions = {}): Promise<DownloadedImage> {
    const own = this.#dispatcher;
    const gatewayDispatcher = own instanceof OwnedAgent ? await own.dispatcher() : own;
    return downloadImage(link, { gatewayOrigin: new URL(this.baseURL).origin, gatewayDispatcher }, options);
  }

  /** The models this key may call (`GET /models`), the authoritative list. */
  async listModels(options: CallOptions = {}): Promise<{ models: ModelList; ids: GatewayIds }> {
    const { value, ids, status } = await this.#transport.json({
      method: "GET",
      url: `${this.baseURL}/models`,
      headers: callHeaders(options),
      ...sendOptionsOf(options),
    });
    const parsed = modelListSchema.safeParse(value);
    if (!parsed.success)
      throw invalidResponse(
        `The model list does not match the wire format (${firstIssue(parsed.error)}).`,
        ids,
        status,
      );
    return { models: parsed.data, ids };
  }

  /** Closes the client's own connections; a dispatcher passed in is left open for its owner. */
  async close(): Promise<void> {
    await this.#ownedAgent?.close();
  }
}

function checkRequest(request: ChatRequest): ChatRequest {
  if (isChatRequest(request)) return request;
  const parsed = chatRequestSchema.safeParse(request);
  if (!parsed.success)
    throw new ParameterError(`The chat request is not valid (${firstIssue(parsed.error)}). Fix it before sending.`);
  return parsed.data;
}

function checkResponse(value: unknown, ids: GatewayIds, status: number): ChatResponse {
  const parsed = chatResponseSchema.safeParse(value);
  if (!parsed.success)
    throw invalidResponse(
      `The chat response does not match the wire format (${firstIssue(parsed.error)}).`,
      ids,
      status,
    );
  return parsed.data;
}

function firstIssue(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  return issue === undefined ? "unknown issue" : `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`;
}

function sendOptionsOf(options: CallOptions): { signal?: AbortSignal; dispatcher?: Dispatcher } {
  return {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  };
}
