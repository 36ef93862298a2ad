import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dialect } from "./dialects/index.js";
import type { GatewayContext } from "./gateway-context.js";
import type { KeyAccount } from "./key-account.js";
import { KeyStore } from "./key-store.js";
import { sendError } from "./send-response.js";

/** An authenticated request admitted under its key's limits. */
export interface Admission {
  readonly account: KeyAccount;
}

/** Options of `authorize`. */
export interface AuthorizeOptions {
  /** Admit a deactivated key; the route refuses it (sendKeyDeactivated) unless it replays a billed
   * response, which the request that spent the last of the quota may need. Default false. */
  readonly deferDeactivation?: boolean;
}

/**
 * Checks the bearer key and the key's rate and concurrency limits; answers 401/429 itself and
 * returns undefined then. An admitted request holds a concurrency slot until its response closes.
 */
export function authorize(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  options: AuthorizeOptions = {},
): Admission | undefined {
  const account = findAccount(context, request, response);
  if (!account) return undefined;
  const refusal = !account.active && options.deferDeactivation !== true ? "deactivated" : account.admit(Date.now());
  // One listener per request does the bookkeeping when the response closes: count it, free its slot.
  // `on`, not `once`: a response emits close once, and once's wrapper costs more than the listener.
  response.on("close", () => {
    account.count(response.writableFinished ? response.statusCode : "dropped");
    if (refusal === undefined) account.release();
  });
  const dialect = context.dialects.forFamily();
  if (refusal === "deactivated") {
    sendKeyDeactivated(response, dialect);
    return undefined;
  }
  if (refusal !== undefined) {
    sendError(response, 429, refusal.code, refusal.message, { retryAfterS: refusal.retryAfterS, dialect });
    return undefined;
  }
  return { account };
}

/** The 401 of a key whose quota is spent. */
export function sendKeyDeactivated(response: ServerResponse, dialect?: Dialect): void {
  sendError(
    response,
    401,
    "key_deactivated",
    "This API key is deactivated: its quota is spent. Top up the key or use another one.",
    dialect === undefined ? {} : { dialect },
  );
}

function findAccount(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
): KeyAccount | undefined {
  const header = request.headers.authorization;
  const account = header === undefined ? undefined : context.keys.findBearer(header);
  if (account) return account;
  context.unauthenticated++;
  const message =
    header === undefined
      ? "Missing API key. Send the header Authorization: Bearer sk-..."
      : KeyStore.isBearer(header)
        ? "Invalid API key: this gateway has no such key."
        : "Malformed Authorization header. Send Authorization: Bearer sk-...";
  sendError(response, 401, "invalid_api_key", message, { dialect: context.dialects.forFamily() });
  return undefined;
}
