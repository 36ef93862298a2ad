import type { IncomingMessage, ServerResponse } from "node:http";
import { IDEMPOTENCY_HEADERS } from "../gateway/wire.js";
import { sendKeyDeactivated } from "./authorize.js";
import type { GatewayContext } from "./gateway-context.js";
import { fingerprintOf, type IdempotencyClaim, type StoredResponse } from "./idempotency-store.js";
import type { KeyAccount, QuotaHold } from "./key-account.js";
import { flushRequestIds, idHeaders } from "./request-ids.js";
import { sendError, sendJsonText } from "./send-response.js";
import { SseWriter } from "./write-sse.js";

/** What a billable route does next: stop (the answer went out), or go on, settling the claim if any. */
export type IdempotencyStep = { readonly done: true } | { readonly done: false; readonly claim?: IdempotencyClaim };

const MAX_KEY_LENGTH = 255;
const DONE: IdempotencyStep = { done: true };
const UNKEYED: IdempotencyStep = { done: false };

/** True when the request carries an Idempotency-Key header and the gateway honours it (config `idempotency`). */
export function hasIdempotencyKey(context: GatewayContext, request: IncomingMessage): boolean {
  return context.config.idempotency && request.headers[IDEMPOTENCY_HEADERS.key] !== undefined;
}

/** The Idempotency-Key a request carried, honoured or not, for the bill's record; undefined without one. */
export function sentIdempotencyKey(request: IncomingMessage): string | undefined {
  const header = request.headers[IDEMPOTENCY_HEADERS.key];
  return header === undefined ? undefined : (Array.isArray(header) ? header.join(",") : header).trim();
}

/**
 * Applies a request's Idempotency-Key (per API key; `path` and body make its fingerprint): a repeat
 * of a billed request gets the stored response with `idempotent-replayed: true` and is not billed;
 * a repeat with another body gets 422 idempotency_key_reused; a repeat while the first is in flight
 * waits for it. The first request gets a claim, which the route settles: stored when its hold
 * commits (even after the client left: the call was billed), abandoned once the route is done
 * otherwise (`settleClaim`), so failures and injected faults are never replayed. Every request the
 * key is applied to answers `idempotent-replayed: false` unless replayed, which tells a client the
 * key was honoured. Without the header (or with `idempotency: false`) nothing changes, except that
 * a key admitted with `deferDeactivation` is refused here.
 */
export async function applyIdempotencyKey(
  context: GatewayContext,
  account: KeyAccount,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  body: unknown,
): Promise<IdempotencyStep> {
  const key = context.config.idempotency ? sentIdempotencyKey(request) : undefined;
  if (key === undefined) return withoutIdempotencyKey(account, response);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    if (refuseIfDeactivated(account, response)) return DONE;
    const message = `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters without spaces. Derive it from what identifies the call (run id, step, item, call number).`;
    sendError(response, 400, "invalid_parameter", message, { param: "Idempotency-Key" });
    return DONE;
  }
  const gone = response.destroyed
    ? Promise.resolve()
    : new Promise<void>((resolve) => response.once("close", () => resolve()));
  const lookup = await context.idempotency.begin(account, key, fingerprintOf(path, body), gone);
  if (lookup === undefined) return DONE;
  if (lookup.kind === "conflict") {
    const message =
      "This Idempotency-Key was already used for a different request (another body or endpoint). Send a new key for a new request; repeat the key only with the identical request.";
    sendError(response, 422, "idempotency_key_reused", message, { param: "Idempotency-Key" });
    return DONE;
  }
  if (lookup.kind === "replay") {
    account.countReplay();
    await replay(response, lookup.response);
    return DONE;
  }
  const { claim } = lookup;
  response.setHeader(IDEMPOTENCY_HEADERS.replayed, "false");
  if (refuseIfDeactivated(account, response)) {
    claim.abandon();
    return DONE;
  }
  return { done: false, claim };
}

/**
 * Runs the rest of a billable route, then gives up its claim if nothing was stored. The claim lives
 * as long as the route, not the connection: a call billed after its client left is stored, so the
 * client's repeat gets the replay instead of a second bill.
 */
export async function settleClaim(step: IdempotencyStep, route: () => Promise<void> | void): Promise<void> {
  try {
    await route();
  } finally {
    if (!step.done) step.claim?.abandon();
  }
}

/** What `applyIdempotencyKey` does for a request without the header, without its promise: refuse a deactivated key. */
export function withoutIdempotencyKey(account: KeyAccount, response: ServerResponse): IdempotencyStep {
  return refuseIfDeactivated(account, response) ? DONE : UNKEYED;
}

/** A hold that, once committed (billed), stores the response `body` gives for replays under `claim`. */
export function storingHold(
  hold: QuotaHold,
  claim: IdempotencyClaim | undefined,
  response: ServerResponse,
  body: () => StoredResponse["body"],
): QuotaHold {
  if (claim === undefined) return hold;
  return {
    commit: (entry) => {
      const billed = hold.commit(entry);
      storeResponse(claim, response, entry.requestId, body());
      return billed;
    },
    release: () => hold.release(),
  };
}

/** Stores a billed response under `claim`, with the id headers of `response`. */
export function storeResponse(
  claim: IdempotencyClaim | undefined,
  response: ServerResponse,
  requestId: string,
  body: StoredResponse["body"],
): void {
  if (claim === undefined) return;
  claim.store({ requestId, headers: idHeaders(response), body });
}

function refuseIfDeactivated(account: KeyAccount, response: ServerResponse): boolean {
  if (account.active) return false;
  sendKeyDeactivated(response);
  return true;
}

async function replay(response: ServerResponse, stored: StoredResponse): Promise<void> {
  flushRequestIds(response);
  for (const [name, value] of Object.entries(stored.headers)) response.setHeader(name, value);
  response.setHeader(IDEMPOTENCY_HEADERS.replayed, "true");
  if (stored.body.kind === "json") {
    sendJsonText(response, 200, stored.body.text);
    return;
  }
  const writer = new SseWriter(response);
  writer.start();
  if (stored.body.kind === "sse-text") writer.finish(stored.body.text);
  else await writer.events(stored.body.events, true);
}
