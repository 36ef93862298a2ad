import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { UpstreamError, redactSecrets, type GatewayIds } from "../errors.js";
import { bodyKind, jsonTextOf } from "./body-kind.js";
import { decodedBody } from "./decoded-body.js";
import { errorFromResponse } from "./error-from-response.js";
import { readGatewayIds } from "./gateway-ids.js";
import { OwnedAgent } from "./owned-agent.js";
import { RequestWatchdog, WAITING_FOR_CHUNK, type LibraryTimeouts } from "./request-watchdog.js";

/** How HttpTransport sends: the key, the dispatcher and the two timeouts it enforces itself. */
export interface HttpTransportOptions {
  readonly apiKey: string;
  /** The caller's dispatcher, or the client's own Agent (made on the first request). */
  readonly dispatcher: Dispatcher | OwnedAgent;
  /** Until response headers (and, for streams, the first event). */
  readonly firstByteTimeoutMs: number;
  /** Between body chunks (JSON) or stream events (SSE). */
  readonly chunkTimeoutMs: number;
}

/** One request to send. */
export interface TransportRequest {
  readonly method: "GET" | "POST";
  readonly url: string;
  /** Sent as JSON. */
  readonly json?: unknown;
  readonly accept?: string;
  /** Extra headers (from callHeaders: lower-case, none of the transport's own). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether to send the bearer key; false for downloads from another origin. */
  readonly authorize?: boolean;
  readonly signal?: AbortSignal;
  /** Sends this request through another dispatcher than the transport's (a caller's view of it, say). */
  readonly dispatcher?: Dispatcher;
  /** True when the body is read whole (JSON): undici's own timers then bound the wait for the
   * headers and between body chunks, and no watchdog timer runs. Default false: the watchdog runs
   * them, as a stream needs (its chunk timeout is per event, not per packet). */
  readonly readWhole?: boolean;
}

/** A response body: undici's, or a stream that stands in for it (a body already read). Only undici's
 * can be dumped, which hands its socket back to the pool. */
export type ResponseBody = Readable & { dump?: Dispatcher.ResponseData["body"]["dump"] };

/** A 2xx response whose body has not been read yet; its watchdog is still armed for the first byte. */
export interface OpenResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly ids: GatewayIds;
  readonly body: ResponseBody;
  readonly watchdog: RequestWatchdog;
  readonly url: string;
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_TARGETS = 64;

/** Sends requests over undici with the bearer key, timeouts, and typed errors; one attempt each. */
export class HttpTransport {
  readonly #options: HttpTransportOptions;
  readonly #libraryTimeouts: LibraryTimeouts;
  readonly #authorization: string;

  constructor(options: HttpTransportOptions) {
    this.#options = options;
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#libraryTimeouts = { firstByteTimeoutMs: options.firstByteTimeoutMs, chunkTimeoutMs: options.chunkTimeoutMs };
  }

  /** The chunk timeout, for readers of an open response. */
  get chunkTimeoutMs(): number {
    return this.#options.chunkTimeoutMs;
  }

  /** Sends the request and resolves once a 2xx status arrived; any other status is thrown as a typed error. */
  async open(request: TransportRequest): Promise<OpenResponse> {
    const url = request.url;
    const readWhole = request.readWhole === true;
    const watchdog = new RequestWatchdog(request.signal, readWhole ? this.#libraryTimeouts : undefined);
    if (!readWhole) watchdog.arm(this.#options.firstByteTimeoutMs, "the response");
    const headers: Record<string, string> = {};
    // Any authorization among the extras is left out; the transport's own headers are set last, so
    // no extra header can replace the key or the framing.
    for (const name in request.headers) {
      const lower = name.toLowerCase();
      if (lower !== "authorization") headers[lower] = request.headers[name]!;
    }
    headers.accept = request.accept ?? "application/json";
    // Without it any coding is acceptable (RFC 9110 section 12.5.3), and undici's request does not decode.
    headers["accept-encoding"] = "identity";
    headers["user-agent"] = "svc-flow";
    if (request.authorize !== false) headers.authorization = this.#authorization;
    if (request.json !== undefined) headers["content-type"] = "application/json";

    const { origin, path } = target(url);
    let response: Dispatcher.ResponseData;
    try {
      const own = request.dispatcher ?? this.#options.dispatcher;
      const dispatcher = own instanceof OwnedAgent ? (own.made ?? (await own.dispatcher())) : own;
      response = await dispatcher.request({
        origin,
        path,
        method: request.method,
        headers,
        ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
        signal: watchdog.signal,
        // Otherwise the watchdog enforces both, per SSE event rather than per packet.
        headersTimeout: readWhole ? this.#options.firstByteTimeoutMs : 0,
        bodyTimeout: readWhole ? this.#options.chunkTimeoutMs : 0,
      });
    } catch (error) {
      throw watchdog.failure(error, { url });
    }

    watchdog.attach(response.body);
    const ids = readGatewayIds(response.headers);
    const status = response.statusCode;
    const opened: OpenResponse = {
      status,
      headers: response.headers,
      ids,
      body: decodedBody(response.body, response.headers["content-encoding"], (cause) =>
        invalidResponse(`The body from ${url} does not decode as its content-encoding says.`, ids, status, cause),
      ),
      watchdog,
      url,
    };
    if (response.statusCode < 200 || response.statusCode >= 300) {
      let text = "";
      try {
        text = (await this.#readAll(opened, MAX_ERROR_BODY_BYTES)).toString("utf8");
      } catch {
        // The status already says what failed; a body we could not read only loses detail.
      }
      watchdog.release();
      throw errorFromResponse({
        status: response.statusCode,
        headers: response.headers,
        body: text,
        apiKey: this.#options.apiKey,
      });
    }
    return opened;
  }

  /** Sends the request and returns the whole 2xx body as bytes. */
  async bytes(request: TransportRequest): Promise<{ bytes: Buffer; ids: GatewayIds; contentType?: string }> {
    const opened = await this.open(request);
    const bytes = await this.#readAll(opened);
    const contentType = opened.headers["content-type"];
    return { bytes, ids: opened.ids, ...(typeof contentType === "string" ? { contentType } : {}) };
  }

  /** Sends the request and returns the 2xx body parsed as JSON, with the response headers. */
  async json(
    request: TransportRequest,
  ): Promise<{ value: unknown; ids: GatewayIds; status: number; headers: OpenResponse["headers"] }> {
    return this.readJson(await this.open(request));
  }

  /** Reads an opened 2xx response's whole body as JSON. */
  async readJson(
    opened: OpenResponse,
  ): Promise<{ value: unknown; ids: GatewayIds; status: number; headers: OpenResponse["headers"] }> {
    return jsonBody(await this.#readAll(opened), opened);
  }

  /** Reads an opened 2xx response's whole body. */
  readBody(opened: OpenResponse): Promise<Buffer> {
    return this.#readAll(opened);
  }

  /** The body's chunks, each within the chunk timeout; failures come out as typed errors. */
  async *chunks(opened: OpenResponse): AsyncGenerator<Buffer> {
    const { body, watchdog } = opened;
    try {
      watchdog.arm(this.#options.chunkTimeoutMs, WAITING_FOR_CHUNK);
      for await (const chunk of body) {
        watchdog.disarm();
        yield chunk as Buffer;
        watchdog.arm(this.#options.chunkTimeoutMs, WAITING_FOR_CHUNK);
      }
    } catch (error) {
      throw watchdog.failure(error, { url: opened.url, responseStarted: true, ...opened.ids });
    } finally {
      watchdog.release();
      if (!body.destroyed) body.on("error", () => undefined).destroy();
    }
  }

  // Each chunk must come within the chunk timeout, as in `chunks()`. The listeners stay in place (no once()
  // wrappers to make and remove per response): settleRead acts once, and the body is ended or destroyed once settled.
  #readAll(opened: OpenResponse, limit = Number.POSITIVE_INFINITY): Promise<Buffer> {
    const { body, watchdog } = opened;
    const chunkTimeoutMs = this.#options.chunkTimeoutMs;
    return new Promise<Buffer>((resolve, reject) => {
      const read: BodyRead = { opened, chunks: [], size: 0, settled: false, resolve, reject };
      const timed = watchdog.timesBody;
      if (timed) watchdog.arm(chunkTimeoutMs, WAITING_FOR_CHUNK);
      body
        .on("data", (chunk: Buffer) => {
          read.chunks.push(chunk);
          read.size += chunk.length;
          if (read.size >= limit) settleRead(read);
          else if (timed) watchdog.arm(chunkTimeoutMs, WAITING_FOR_CHUNK);
        })
        .on("end", () => settleRead(read))
        .on("error", (error: unknown) => settleRead(read, error));
    });
  }
}

/** A whole body parsed as JSON (see jsonTextOf), with the response's ids, status and headers. */
export function jsonBody(
  bytes: Buffer,
  opened: OpenResponse,
): { value: unknown; ids: GatewayIds; status: number; headers: OpenResponse["headers"] } {
  try {
    return {
      value: JSON.parse(jsonTextOf(bytes.toString("utf8"))),
      ids: opened.ids,
      status: opened.status,
      headers: opened.headers,
    };
  } catch (error) {
    // Plain text is likely a relay's own error ("unsupported model: x"); a page or binary is not quoted.
    const text = bodyKind([bytes]) === "other" ? bytes.toString("utf8", 0, 160).replace(/\s+/g, " ").trim() : "";
    const quoted = /^[\p{L}\p{N}\p{P}\p{Zs}]+$/u.test(text) ? `: ${redactSecrets(text)}` : ".";
    throw invalidResponse(`The response from ${opened.url} is not JSON${quoted}`, opened.ids, opened.status, error);
  }
}

// A process sends to a handful of URLs again and again (a workflow run makes a client per step); parsing one costs
// more than the lookup.
const TARGETS = new Map<string, { origin: string; path: string }>();

function target(url: string): { origin: string; path: string } {
  let found = TARGETS.get(url);
  if (found === undefined) {
    const parsed = new URL(url);
    found = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (TARGETS.size >= MAX_TARGETS) TARGETS.clear();
    TARGETS.set(url, found);
  }
  return found;
}

/** A body being read whole by HttpTransport. */
interface BodyRead {
  readonly opened: OpenResponse;
  readonly chunks: Buffer[];
  size: number;
  settled: boolean;
  readonly resolve: (bytes: Buffer) => void;
  readonly reject: (error: unknown) => void;
}

function settleRead(read: BodyRead, error?: unknown): void {
  if (read.settled) return;
  read.settled = true;
  const { body, watchdog, url, ids } = read.opened;
  watchdog.release();
  if (error !== undefined) read.reject(watchdog.failure(error, { url, responseStarted: true, ...ids }));
  // A body of one chunk (most JSON answers) is that chunk, not a copy of it.
  else read.resolve(read.chunks.length === 1 ? read.chunks[0]! : Buffer.concat(read.chunks, read.size));
  // Destroying emits "error" on the body, which nobody waits for any more.
  if (!body.destroyed) body.on("error", ignore).destroy();
}

function ignore(): void {}

/** A 2xx response whose body is not what the wire format promises. Not retried: it may be billed. */
export function invalidResponse(
  message: string,
  ids: GatewayIds,
  status: number | undefined,
  cause?: unknown,
): UpstreamError {
  return new UpstreamError(`${message} The gateway broke the wire format; report it with the request id.`, {
    ...ids,
    ...(status === undefined ? {} : { status }),
    code: "invalid_response",
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
  });
}
