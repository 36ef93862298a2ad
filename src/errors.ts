/** Ids the gateway returns in its response headers, kept on every error that had a response. */
export interface GatewayIds {
  readonly requestId?: string;
  readonly auditId?: string;
  readonly backendId?: string;
}

/** Options every svc-flow error accepts. */
export interface SvcFlowErrorOptions extends GatewayIds {
  readonly cause?: unknown;
  /** HTTP status, when the error came from a response. */
  readonly status?: number;
  /** Whether trying the same request again may succeed. */
  readonly retryable?: boolean;
  /** Retry-After from the response, in seconds. */
  readonly retryAfterS?: number;
}

/** Base class of every error svc-flow throws; `code` is stable and safe to switch on. */
export class SvcFlowError extends Error {
  readonly code: string;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterS?: number;
  readonly requestId?: string;
  readonly auditId?: string;
  readonly backendId?: string;

  constructor(code: string, message: string, options: SvcFlowErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterS = options.retryAfterS;
    this.requestId = options.requestId;
    this.auditId = options.auditId;
    this.backendId = options.backendId;
  }
}

/** The key is missing or wrong (401). Replace the key. */
export class AuthenticationError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("invalid_api_key", message, { ...options, retryable: false });
  }
}

/** The key was deactivated because its balance is spent (401). Top up or replace the key. */
export class KeyDeactivatedError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("key_deactivated", message, { ...options, retryable: false });
  }
}

/** A rate or concurrency limit was hit (429). Retried with backoff. */
export class RateLimitError extends SvcFlowError {
  /** True when the client's scheduler sends fewer requests at once because of this 429: a retry then
   * waits its turn, so it does not use up one of the call's attempts (RetryPolicy.limitRetries). */
  paced = false;

  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("rate_limited", message, { ...options, retryable: true });
  }
}

/** The key's quota cannot cover the request (429 insufficient_quota). Never retried. */
export class QuotaExceededError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("insufficient_quota", message, { ...options, retryable: false });
  }
}

/** The gateway rejected a parameter or the request shape (400, 413). Fix the request. */
export class BadRequestError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions & { code?: string } = {}) {
    super(options.code ?? "bad_request", message, { ...options, retryable: false });
  }
}

/** The model id is not in the catalogue, or the key may not call it. A fallback moves on to
 * the next model. */
export class UnknownModelError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions & { code?: string } = {}) {
    super(options.code ?? "model_not_found", message, { ...options, retryable: false });
  }
}

/** The model exists but this key may not call it (a relay's 403 "this token may not use this
 * model"). Not the key's fault as a whole: a fallback moves on to the next model. */
export class ModelAccessError extends UnknownModelError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super(message, { ...options, code: "model_not_allowed" });
  }
}

/** A temporary upstream failure (5xx) or a broken connection. Retried, then fallen back. */
export class UpstreamError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions & { code?: string } = {}) {
    super(options.code ?? "upstream_error", message, { retryable: true, ...options });
  }
}

/** No response in time: connect, first byte, or between stream chunks. */
export class TimeoutError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("timeout", message, { retryable: true, ...options });
  }
}

/** A stream broke its contract: malformed event, or ended without a finish reason. */
export class StreamError extends SvcFlowError {
  /** What had arrived before the stream broke. */
  readonly partial?: unknown;

  constructor(message: string, options: SvcFlowErrorOptions & { partial?: unknown } = {}) {
    super("stream_error", message, { retryable: true, ...options });
    this.partial = options.partial;
  }
}

/** A reasoning or thinking model spent the whole output budget and returned nothing. */
export class EmptyOutputError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("empty_output", message, { ...options, retryable: false });
  }
}

/** The request breaks a model's rule and was refused before sending. */
export class ParameterError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("invalid_parameter", message, { ...options, retryable: false });
  }
}

/** A reply does not conform to the schema the caller asked for (structured output). */
export class StructuredOutputError extends SvcFlowError {
  /** The reply text or tool arguments that failed, for debugging. */
  readonly raw?: string;

  constructor(message: string, options: SvcFlowErrorOptions & { raw?: string } = {}) {
    super("invalid_structured_output", message, { ...options, retryable: false });
    this.raw = options.raw;
  }
}

/** The prompt does not fit the model's context window. */
export class ContextWindowError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("context_window_exceeded", message, { ...options, retryable: false });
  }
}

/** The gateway does not offer this (embeddings, speech synthesis, speech-to-text). */
export class NotOfferedError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("not_offered", message, { ...options, retryable: false });
  }
}

/** The call would take the run past its money budget; refused before any request was sent. */
export class BudgetExceededError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("budget_exceeded", message, { ...options, retryable: false });
  }
}

/** Bad configuration or input: a workflow file, a config file, an option value. */
export class ConfigError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions & { code?: string } = {}) {
    super(options.code ?? "invalid_config", message, { ...options, retryable: false });
  }
}

/** The call was cancelled through its AbortSignal. */
export class AbortedError extends SvcFlowError {
  constructor(message = "The operation was aborted.", options: SvcFlowErrorOptions = {}) {
    super("aborted", message, { ...options, retryable: false });
  }
}

/** A tool got input it cannot act on (bad expression, path outside the workspace, refused URL). */
export class ToolInputError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions & { code?: string } = {}) {
    super(options.code ?? "invalid_tool_input", message, { ...options, retryable: false });
  }
}

/** A public-only connection refused a loopback, private, link-local or other non-public address. */
export class PrivateAddressError extends SvcFlowError {
  /** Which address and why, e.g. "localhost resolves to 127.0.0.1, which is loopback". */
  readonly reason: string;

  constructor(reason: string, options: SvcFlowErrorOptions = {}) {
    super(
      "private_address",
      `Refused to connect to a private network address (${redactSecrets(reason)}). ` +
        "Use a public address, or turn on the caller's private-network option (fetch_url: allowPrivateNetwork; local gateway: allowPrivateImageURLs).",
      { ...options, retryable: false },
    );
    this.reason = reason;
  }
}

const secretValues = new Set<string>();
let longestFirst: readonly string[] = [];

/**
 * Makes `value` (an API key from the environment, a config file or a flag; a token for an MCP
 * server) one that redactSecrets removes wherever it appears, with and without an `sk-` prefix:
 * a server may echo a key without its prefix, which the `sk-` pattern alone does not catch.
 */
export function registerSecret(value: string | undefined): void {
  const secret = value?.trim();
  if (secret === undefined) return;
  // Very short values would redact ordinary words; a secret is longer than that.
  let added = false;
  for (const form of secret.startsWith("sk-") ? [secret, secret.slice(3)] : [secret]) {
    if (form.length < 6 || secretValues.has(form)) continue;
    secretValues.add(form);
    added = true;
  }
  // Every client registers its key again (a run makes one per step): only a new secret changes the list.
  if (added) longestFirst = [...secretValues].sort((a, b) => b.length - a.length);
}

// The local gateway's documented demo key is public: hiding it would hide the one key a new user is told to use.
// A key registered as a secret (SVC_API_KEY=sk-local-demo) is still masked below.
const PUBLIC_DEMO_KEY = "sk-local-demo";

/** Replaces anything that looks like an API key, and every registered secret, in a string, so they never reach logs. */
export function redactSecrets(text: string): string {
  // Most text holds no key: a plain search is cheaper than running the pattern over every journal line.
  let redacted = text.includes("sk-")
    ? text.replace(/\bsk-[A-Za-z0-9_-]{2,}/g, (key) => (key === PUBLIC_DEMO_KEY ? key : "sk-[redacted]"))
    : text;
  // Longest first, so a key's unprefixed form does not cut its prefixed form in two.
  for (const value of longestFirst) {
    if (redacted.includes(value)) redacted = redacted.replaceAll(value, "[redacted]");
  }
  return redacted;
}

/** A person rejected an approval step (`svc-flow approve --reject`), or nobody answered in time and its onTimeout is reject. */
export class ApprovalRejectedError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("approval_rejected", message, { ...options, retryable: false });
  }
}

/** An MCP server did not start, could not be listed, or died: the message quotes the end of its stderr. */
export class McpServerError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions = {}) {
    super("mcp_server_failed", redactSecrets(message), { ...options, retryable: false });
  }
}

/** An MCP tool answered with an error (`isError`), or was called with input its schema refuses. */
export class McpToolError extends SvcFlowError {
  constructor(message: string, options: SvcFlowErrorOptions & { code?: string } = {}) {
    super(options.code ?? "mcp_tool_error", redactSecrets(message), { ...options, retryable: false });
  }
}
