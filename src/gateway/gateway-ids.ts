import type { GatewayIds } from "../errors.js";
import { ID_HEADERS, IDEMPOTENCY_HEADERS } from "./wire.js";

/** Response headers as undici's `request` or fetch's `Headers` give them. */
export type HeaderSource = Headers | Readonly<Record<string, string | string[] | undefined>>;

/** Reads one header case-insensitively; a repeated header gives its first value. */
export function readHeader(headers: HeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  let value = headers[lower];
  // undici names headers in lower case; other sources may not. A loop, not Object.entries: the
  // replay header is absent from almost every response, and entries copied them all each time.
  if (value === undefined) {
    for (const key in headers) {
      if (key.toLowerCase() === lower) {
        value = headers[key];
        break;
      }
    }
  }
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === "" ? undefined : first;
}

/** The gateway's request, audit and backend ids from a response's headers. */
export function readGatewayIds(headers: HeaderSource | undefined): GatewayIds {
  const ids: { requestId?: string; auditId?: string; backendId?: string } = {};
  const requestId = readHeader(headers, ID_HEADERS.requestId);
  const auditId = readHeader(headers, ID_HEADERS.auditId);
  const backendId = readHeader(headers, ID_HEADERS.backendId);
  if (requestId !== undefined) ids.requestId = requestId;
  if (auditId !== undefined) ids.auditId = auditId;
  if (backendId !== undefined) ids.backendId = backendId;
  return ids;
}

/** Reads `retry-after-ms` or `Retry-After` (seconds or an HTTP date) as seconds. */
export function readRetryAfterS(headers: HeaderSource | undefined, now: number = Date.now()): number | undefined {
  const milliseconds = readHeader(headers, "retry-after-ms");
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim())) {
    return Number(milliseconds) / 1000;
  }
  const value = readHeader(headers, "retry-after")?.trim();
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** True when the gateway replayed a stored response for the call's idempotency key (billed once, earlier). */
export function wasReplayed(headers: HeaderSource | undefined): boolean {
  return readHeader(headers, IDEMPOTENCY_HEADERS.replayed)?.trim().toLowerCase() === "true";
}
