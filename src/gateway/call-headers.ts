import { ParameterError, redactSecrets } from "../errors.js";
import { IDEMPOTENCY_HEADERS } from "./wire.js";

/** Per-call request headers: extra headers, and the idempotency key of a billable call. */
export interface CallHeaderOptions {
  /** Extra request headers. The client's own (authorization, content-type, accept, ...) cannot be replaced. */
  headers?: Readonly<Record<string, string>>;
  /** Sent as `Idempotency-Key`: a repeat of a billed call with the same key and body is replayed by
   * the gateway, not billed again. Derive it from what identifies the call, never at random per attempt. */
  idempotencyKey?: string;
}

// The transport sets these; a caller replacing them could send another key or break the framing.
const RESERVED = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "host",
  "content-type",
  "content-length",
  "transfer-encoding",
  "connection",
  "accept",
  "upgrade",
  "expect",
  "te",
  "keep-alive",
]);
const MAX_KEY_LENGTH = 255;

/** Checks an idempotency key as the gateway will: 1 to 255 visible ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ParameterError(
      `Expected idempotencyKey to be 1 to ${MAX_KEY_LENGTH} visible ASCII characters without spaces, got ${redactSecrets(JSON.stringify(String(key).slice(0, 40)))}. Derive it from the run, step and call (e.g. a hash).`,
    );
  }
  return key;
}

/** The extra headers of one call, names lower-cased; throws ParameterError for a reserved or malformed header. */
export function callHeaders(options: CallHeaderOptions): Record<string, string> {
  const result: Record<string, string> = {};
  const headers = options.headers;
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) {
      const fix = lower === "authorization" ? "Pass apiKey to the client instead" : "The client sets it itself";
      throw new ParameterError(`The header "${name}" cannot be set per call. ${fix}.`);
    }
    if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(lower) || typeof value !== "string" || /[\r\n\0]/.test(value)) {
      throw new ParameterError(
        `The header "${name}" is not a valid HTTP header (name or value). Fix it before sending.`,
      );
    }
    result[lower] = value;
  }
  if (options.idempotencyKey !== undefined)
    result[IDEMPOTENCY_HEADERS.key] = checkIdempotencyKey(options.idempotencyKey);
  return result;
}
