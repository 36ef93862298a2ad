import { randomBytes, randomUUID } from "node:crypto";
import type { OutgoingHttpHeader, ServerResponse } from "node:http";
import { ID_HEADERS } from "../gateway/wire.js";

/** The backend id of answers no model backend handled (auth failures, model lists). */
export const EDGE_BACKEND_ID = "local-edge-1";

/** The ids of one request; `requestId` and `auditId` are sent in its response headers. */
export interface RequestIds {
  readonly requestId: string;
  readonly auditId: string;
  /** The request id without its dashes, for ids derived from it (`chatcmpl-...`). */
  readonly compactId: string;
}

/** A flat header list, `[name, value, name, value, ...]`, as `writeHead` takes it. */
export type HeaderList = readonly OutgoingHttpHeader[];

// Ids are a per-process random prefix and a counter: unique like random UUIDs (74 random bits tell
// processes apart), while two randomUUID calls and the dash stripping cost ~0.7 µs a request.
// The request id keeps the UUID v4 shape: the counter is its last group.
const REQUEST_PREFIX = randomUUID().slice(0, 24);
const COMPACT_PREFIX = REQUEST_PREFIX.replaceAll("-", "");
const AUDIT_PREFIX = `audit-${randomBytes(10).toString("hex")}`;
// The counter is 48 bits kept as two 24-bit halves, so both stay small integers: the hex text of a
// 48-bit number (a double) took ~0.25 µs, the low half's alone a tenth of that.
const HALF_SPAN = 2 ** 24;
const start = randomBytes(6);
let high = start.readUIntBE(0, 3);
let low = start.readUIntBE(3, 3);
let highHex = hexOf(high);

function hexOf(half: number): string {
  return half.toString(16).padStart(6, "0");
}

function newIds(): RequestIds {
  low++;
  if (low === HALF_SPAN) {
    low = 0;
    high = (high + 1) % HALF_SPAN;
    highHex = hexOf(high);
  }
  const hex = highHex + hexOf(low);
  return { requestId: REQUEST_PREFIX + hex, auditId: AUDIT_PREFIX + hex, compactId: COMPACT_PREFIX + hex };
}

interface PendingIds {
  readonly requestId: string;
  readonly auditId: string;
  backendId: string;
}

const PENDING = Symbol("pending id headers");
type Deferring = ServerResponse & { [PENDING]?: PendingIds | undefined };

/** Creates a request's ids and sets all three id headers on its response. */
export function assignRequestIds(response: ServerResponse): RequestIds {
  const ids = deferRequestIds(response);
  flushRequestIds(response);
  return ids;
}

/**
 * Creates a request's ids like `assignRequestIds`, but its id headers go out with the head
 * (`writeHeadWithIds`) instead of being set now: `setHeader` validates and stores each header, and
 * `writeHead` then merges its own into them, ~1.5 µs a request on the chat route. Whoever sets a
 * header on such a response calls `flushRequestIds` first, so the id headers still come first.
 */
export function deferRequestIds(response: ServerResponse): RequestIds {
  const ids = newIds();
  (response as Deferring)[PENDING] = { requestId: ids.requestId, auditId: ids.auditId, backendId: EDGE_BACKEND_ID };
  return ids;
}

/** Names the model backend that handles the request, once the model is known. */
export function setBackend(response: ServerResponse, family: string): void {
  const pending = (response as Deferring)[PENDING];
  if (pending) pending.backendId = `local-${family}-1`;
  else response.setHeader(ID_HEADERS.backendId, `local-${family}-1`);
}

/** Sets the id headers `deferRequestIds` left pending; call before setting any other header. */
export function flushRequestIds(response: ServerResponse): void {
  const pending = (response as Deferring)[PENDING];
  if (!pending) return;
  (response as Deferring)[PENDING] = undefined;
  response.setHeader(ID_HEADERS.requestId, pending.requestId);
  response.setHeader(ID_HEADERS.auditId, pending.auditId);
  response.setHeader(ID_HEADERS.backendId, pending.backendId);
}

/** Writes the head: any pending id headers, then `headers`. */
export function writeHeadWithIds(response: ServerResponse, status: number, headers: HeaderList): void {
  const pending = (response as Deferring)[PENDING];
  if (!pending) {
    response.writeHead(status, headers as OutgoingHttpHeader[]);
    return;
  }
  // Left in place: a response stored for replay after its head went out still finds its ids.
  const { requestId, auditId, backendId } = ID_HEADERS;
  response.writeHead(status, [
    requestId,
    pending.requestId,
    auditId,
    pending.auditId,
    backendId,
    pending.backendId,
    ...headers,
  ]);
}

/** The id headers of a response, pending or set, by name (for storing a response to replay). */
export function idHeaders(response: ServerResponse): Record<string, string> {
  const pending = (response as Deferring)[PENDING];
  if (pending) {
    return {
      [ID_HEADERS.requestId]: pending.requestId,
      [ID_HEADERS.auditId]: pending.auditId,
      [ID_HEADERS.backendId]: pending.backendId,
    };
  }
  const headers: Record<string, string> = {};
  for (const name of Object.values(ID_HEADERS)) {
    const value = response.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}
