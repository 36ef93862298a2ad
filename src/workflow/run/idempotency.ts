import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import type { Dispatcher } from "undici";

/** The request header that makes a repeated billable call replay instead of bill again. */
export const IDEMPOTENCY_HEADER = "idempotency-key";

const scope = new AsyncLocalStorage<string>();

/**
 * Runs `task` so that every POST it sends carries `Idempotency-Key: <base>:<digest>`, the digest
 * being the sha256 of the request's path and body. `base` is the run id and the step's key (map item
 * indexes included), so the same call after a kill and resume sends the same key, whatever order
 * concurrent calls go out in. Retries of a request share its key (a retry after a lost response is
 * replayed, not billed); a fallback model or the next tool-loop turn is a different body, so a new
 * call. Two identical requests in one step share a key too: the gateway answers the second with the
 * first's reply, which is what an identical request asks for.
 */
export function withIdempotencyScope<T>(base: string, task: () => Promise<T>): Promise<T> {
  return scope.run(base, task);
}

/** Wraps a dispatcher so requests sent inside withIdempotencyScope carry the key header. */
export function idempotentDispatcher(inner: Dispatcher): Dispatcher {
  return inner.compose((dispatch) => (options, handler) => {
    const base = scope.getStore();
    if (base === undefined || options.method !== "POST") return dispatch(options, handler);
    const body = typeof options.body === "string" ? options.body : "";
    const digest = createHash("sha256").update(`${options.path}\n${body}`).digest("hex").slice(0, 16);
    return dispatch({ ...options, headers: withHeader(options.headers, `${headerSafe(base)}:${digest}`) }, handler);
  });
}

function withHeader(headers: Dispatcher.DispatchOptions["headers"], key: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  if (Array.isArray(headers)) {
    for (let index = 0; index + 1 < headers.length; index += 2)
      result[String(headers[index])] = String(headers[index + 1]);
  } else if (headers != null && typeof headers === "object") {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (value !== undefined) result[name] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  result[IDEMPOTENCY_HEADER] = key;
  return result;
}

// Gateways take 1 to 255 visible ASCII characters. A step key is the run id and step ids (with
// item indexes), any length and any characters, so a base that does not fit goes as its digest:
// still the same for the same step instance, so a resumed call sends the same key.
const MAX_BASE_CHARS = 160;

/** The base of a key as sent: itself when short and visible ASCII, else `h-` and its sha256. */
export function headerSafe(base: string): string {
  if (base.length <= MAX_BASE_CHARS && /^[\x21-\x7e]+$/.test(base)) return base;
  return `h-${createHash("sha256").update(base).digest("hex")}`;
}
