import type { ServerResponse } from "node:http";
import type { z } from "zod";
import type { ERROR_CODES } from "../gateway/wire.js";
import { cleanDialect, type Dialect } from "./dialects/index.js";
import { writeHeadWithIds } from "./request-ids.js";

/** One of the codes the gateway puts in `error.code`. */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** Options of one error response. */
export interface ErrorOptions {
  /** The request field at fault, for 400s. */
  readonly param?: string;
  /** Seconds a client should wait; sent as Retry-After and retry-after-ms. */
  readonly retryAfterS?: number;
  /** Close the connection after the response (e.g. a body left unread). */
  readonly close?: boolean;
  /** The relay dialect that shapes the status and body; default clean (the wire format's own). */
  readonly dialect?: Dialect;
  /** Set when the model exists but the key may not call it: relays answer that with 403. */
  readonly modelNotAllowed?: string;
}

const JSON_TYPE = "application/json; charset=utf-8";

/** Sends a JSON body with its length. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  sendJsonText(response, status, JSON.stringify(body));
}

/** Sends JSON that is already text. */
export function sendJsonText(response: ServerResponse, status: number, text: string): void {
  writeHeadWithIds(response, status, ["content-type", JSON_TYPE, "content-length", Buffer.byteLength(text)]);
  response.end(text);
}

/** Sends an error body, in the wire format's shape or a relay dialect's; every error response goes through here. */
export function sendError(
  response: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  options: ErrorOptions = {},
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const headers: (string | number)[] = [];
  if (options.retryAfterS !== undefined) {
    headers.push(
      "retry-after",
      String(options.retryAfterS),
      "retry-after-ms",
      String(Math.round(options.retryAfterS * 1000)),
    );
  }
  // Clients of the wire format (the openai SDK) retry every 429 unless told otherwise; an
  // exhausted quota or a bad key will not get better by retrying.
  if (code === "insufficient_quota" || status === 401) headers.push("x-should-retry", "false");
  if (options.close) headers.push("connection", "close");
  const dialect = options.dialect ?? cleanDialect;
  const shaped = dialect.error({
    status,
    code,
    message,
    ...(options.param === undefined ? {} : { param: options.param }),
    ...(options.modelNotAllowed === undefined ? {} : { modelNotAllowed: options.modelNotAllowed }),
    ...(options.retryAfterS === undefined ? {} : { retryAfterS: options.retryAfterS }),
  });
  const text = JSON.stringify(shaped.body);
  headers.push("content-type", JSON_TYPE, "content-length", Buffer.byteLength(text));
  writeHeadWithIds(response, shaped.status, headers);
  response.end(text);
}

/** Sends the 400 for a request that does not match the wire schema, naming the first bad field. */
export function sendSchemaError(response: ServerResponse, error: z.ZodError, dialect?: Dialect): void {
  const issue = error.issues[0];
  const param = issue ? formatParam(issue.path) : "";
  const missing = issue?.code === "invalid_type" && issue.input === undefined;
  const message = missing
    ? `Missing required field ${param}. See the chat completion request format.`
    : `Invalid ${param || "request"}: ${issue?.message ?? "does not match the request format"}.`;
  sendError(response, 400, "invalid_parameter", message, {
    param: param || undefined,
    ...(dialect === undefined ? {} : { dialect }),
  });
}

function formatParam(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`))
    .join("");
}
