import { SvcFlowError, TimeoutError, UpstreamError, redactSecrets, type GatewayIds } from "../errors.js";

/** Where a network failure happened, for the message. */
export interface NetworkContext extends GatewayIds {
  /** The URL without query, e.g. `http://127.0.0.1:8787/v1/chat/completions`. */
  readonly url: string;
  /** True once the response had started: a failure then is a cut connection. */
  readonly responseStarted?: boolean;
}

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);
const CUT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_DESTROYED",
  "ERR_STREAM_PREMATURE_CLOSE",
]);
// What OpenSSL says when an https request reaches a server that answers in plain http.
const PLAIN_HTTP_CODES = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG"]);
const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

const KNOWN_CODES: ReadonlySet<string> = new Set([...CONNECT_CODES, ...CUT_CODES, ...TIMEOUT_CODES]);

/** Turns a socket-level failure into a typed error: retryable `connection_error` or TimeoutError. */
export function errorFromNetwork(error: unknown, context: NetworkContext): SvcFlowError {
  if (error instanceof SvcFlowError) return error;
  const code = findCode(error);
  // OpenSSL's messages end in a line break, which would split the CLI's one-line error.
  const reason = redactSecrets(error instanceof Error ? error.message : String(error)).trim();
  const ids: GatewayIds = {
    ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
    ...(context.auditId === undefined ? {} : { auditId: context.auditId }),
    ...(context.backendId === undefined ? {} : { backendId: context.backendId }),
  };
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new TimeoutError(
      `No answer from ${context.url} in time (${code}). Check the gateway is reachable, or raise the timeout.`,
      {
        ...ids,
        cause: error,
      },
    );
  }
  if (code !== undefined && CONNECT_CODES.has(code)) {
    return new UpstreamError(
      `Could not connect to ${context.url} (${code}). Check SVC_BASE_URL and that the gateway is running.`,
      { ...ids, code: "connection_error", cause: error },
    );
  }
  if ((code !== undefined && CUT_CODES.has(code)) || context.responseStarted === true) {
    return new UpstreamError(
      `The connection to ${context.url} was cut${context.responseStarted === true ? " mid-response" : ""} (${code ?? reason}). Retry the request.`,
      {
        ...ids,
        code: "connection_error",
        cause: error,
      },
    );
  }
  const tls = findCode(error, PLAIN_HTTP_CODES);
  if (tls !== undefined) {
    return new SvcFlowError(
      "transport_error",
      `Could not make an https connection to ${context.url} (${tls}): the server there does not speak TLS. If the gateway serves plain http, use http:// in SVC_BASE_URL.`,
      { ...ids, cause: error },
    );
  }
  return new SvcFlowError("transport_error", `The request to ${context.url} failed: ${reason}`, {
    ...ids,
    cause: error,
  });
}

// undici wraps socket errors (`fetch failed` -> cause), so the code may sit one or two levels down.
function findCode(error: unknown, known: ReadonlySet<string> = KNOWN_CODES): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && known.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
