import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";
import { ID_HEADERS, IDEMPOTENCY_HEADERS } from "../../gateway/wire.js";
import type { CallIntents } from "./call-intents.js";

/** The request header that makes a repeated billable call replay instead of bill again. */
export const IDEMPOTENCY_HEADER = "idempotency-key";

/** The step instance a dispatcher keys calls for: its key's base, the step (`lines[3].line`), and where its intents go. */
export interface CallScope {
  readonly base: string;
  readonly step: string;
  readonly intents?: CallIntents;
}

/**
 * Wraps a dispatcher for one step instance: every POST it sends carries `Idempotency-Key: <base>:<digest>`,
 * the digest being the sha256 of the request's path and body. `base` is the run id and the step's key
 * (map item indexes included), so the same call after a kill and resume sends the same key, whatever
 * order concurrent calls go out in. Retries of a request share its key (a retry after a lost response
 * is replayed, not billed); a fallback model or the next tool-loop turn is a different body, so a new
 * call. Two identical requests in one step share a key too: the gateway answers the second with the
 * first's reply, which is what an identical request asks for. With `call.intents`, each request waits
 * for its intent to be journaled before it goes out, and its answer's request id is noted for the bill
 * (see CallIntents). The step's services make one (the step is known there), so nothing has to find
 * the step through async context on every promise of the run.
 */
export function keyedDispatcher(inner: Dispatcher, call: CallScope): Dispatcher {
  const base = headerSafe(call.base);
  return inner.compose((dispatch) => (options, handler) => {
    if (options.method !== "POST") return dispatch(options, handler);
    const body = typeof options.body === "string" ? options.body : "";
    const digest = createHash("sha256").update(`${options.path}\n${body}`).digest("hex").slice(0, 16);
    const key = `${base}:${digest}`;
    const keyed = { ...options, headers: withHeader(options.headers, key) };
    const intents = call.intents;
    if (intents === undefined) return dispatch(keyed, handler);
    intents
      .sending(call.step, key, options.path, body)
      .then((send) =>
        dispatch(
          keyed,
          onAnswer(handler, (headers) =>
            intents.answered(
              send,
              readHeader(headers, ID_HEADERS.requestId),
              headers[IDEMPOTENCY_HEADERS.replayed] !== undefined,
            ),
          ),
        ),
      )
      // The intent could not be journaled (or the dispatcher refused the request): it fails as a write error would.
      .catch((error: unknown) => handler.onResponseError?.(null as never, error as Error));
    return true;
  });
}

// The handler undici gives an interceptor speaks its current API; this one only looks at the head.
function onAnswer(
  handler: Dispatcher.DispatchHandler,
  look: (headers: IncomingHttpHeaders) => void,
): Dispatcher.DispatchHandler {
  return {
    onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, statusCode, headers, socket) =>
      handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart: (controller, statusCode, headers, statusMessage) => {
      look(headers);
      return handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
    },
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  };
}

function readHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
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
