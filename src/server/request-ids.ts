import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { ID_HEADERS } from "../gateway/wire.js";

/** The backend id of answers no model backend handled (auth failures, model lists). */
export const EDGE_BACKEND_ID = "local-edge-1";

/** The three ids of one request, as sent in its response headers. */
export interface RequestIds {
  readonly requestId: string;
  readonly auditId: string;
}

/** Creates a request's ids and sets all three id headers on its response. */
export function assignRequestIds(response: ServerResponse): RequestIds {
  const requestId = randomUUID();
  const auditId = `audit-${randomUUID().replaceAll("-", "")}`;
  response.setHeader(ID_HEADERS.requestId, requestId);
  response.setHeader(ID_HEADERS.auditId, auditId);
  response.setHeader(ID_HEADERS.backendId, EDGE_BACKEND_ID);
  return { requestId, auditId };
}

/** Names the model backend that handles the request, once the model is known. */
export function setBackend(response: ServerResponse, family: string): void {
  response.setHeader(ID_HEADERS.backendId, `local-${family}-1`);
}
