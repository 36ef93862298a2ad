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
const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/** Turns a socket-level failure into a typed error: retryable `connection_error` or TimeoutError. */
export function errorFromNetwork(error: unknown, context: NetworkContext): SvcFlowError {
  if (error instanceof SvcFlowError) return error;
  const code = findCode(error);
  const reason = redactSecrets(error instanceof Error ? error.message : String(error));
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
  return new SvcFlowError("transport_error", `The request to ${context.url} failed: ${reason}`, {
    ...ids,
    cause: error,
  });
}

// undici wraps socket errors (`fetch failed` -> cause), so the code may sit one or two levels down.
function findCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECT_CODES.has(code) || CUT_CODES.has(code) || TIMEOUT_CODES.has(code)))
      return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
