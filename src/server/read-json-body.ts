import type { IncomingMessage, ServerResponse } from "node:http";
import { sendError } from "./send-response.js";

/** A parsed request body and the text it came from. */
export interface JsonBody {
  readonly value: unknown;
  readonly text: string;
}

// After a 413 the rest of the body is discarded (never buffered) so the client can read the
// answer; past this many extra bytes the connection is cut instead.
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/** True when a declared Content-Length already exceeds the limit. */
export function declaresTooLarge(request: IncomingMessage, maxBytes: number): boolean {
  const declared = Number(request.headers["content-length"]);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** Sends the 413 of a body over the limit. */
export function sendTooLarge(response: ServerResponse, maxBytes: number): void {
  sendError(
    response,
    413,
    "request_too_large",
    `Request body exceeds ${maxBytes} bytes. Send smaller media (split long audio or video) or raise limits.maxBodyBytes.`,
  );
}

/** The limits a body is read within. */
export interface BodyLimits {
  readonly maxBodyBytes: number;
  /** How long the whole body may take to arrive. */
  readonly bodyTimeoutMs: number;
}

/**
 * Reads and parses a JSON body within a size and a time limit; answers 413, 408 or 400 itself and
 * resolves undefined then. A body still arriving at the deadline gets 408 and the connection is
 * closed, which frees the request's concurrency slot (a trickled body would otherwise hold it).
 */
export function readJsonBody(
  request: IncomingMessage,
  response: ServerResponse,
  limits: BodyLimits,
): Promise<JsonBody | undefined> {
  const maxBytes = limits.maxBodyBytes;
  return new Promise((resolve) => {
    if (declaresTooLarge(request, maxBytes)) {
      resolve(refuse(request, response, maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const deadline = setTimeout(() => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      // The rest of the body will not be read: answer, then cut the connection.
      response.once("finish", () => request.socket.destroy());
      sendError(
        response,
        408,
        "request_timeout",
        `The request body did not arrive within ${limits.bodyTimeoutMs} ms. Send it at once, or raise limits.bodyTimeoutMs.`,
        { close: true },
      );
      resolve(undefined);
    }, limits.bodyTimeoutMs);
    deadline.unref();
    request.once("close", () => clearTimeout(deadline));
    request.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      settled = true;
      clearTimeout(deadline);
      chunks.length = 0;
      resolve(refuse(request, response, maxBytes));
    });
    request.on("end", () => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(parseBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), response));
    });
    request.on("error", () => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(undefined);
    });
  });
}

function parseBody(bytes: Buffer, response: ServerResponse): JsonBody | undefined {
  const text = bytes.toString("utf8");
  try {
    return { value: JSON.parse(text), text };
  } catch (error) {
    const detail = text.trim() === "" ? "The body is empty." : (error as Error).message;
    sendError(response, 400, "invalid_json", `The request body is not valid JSON: ${detail} Send a JSON object.`);
    return undefined;
  }
}

// The rest of the body is discarded, not buffered, so the client can read the 413.
function refuse(request: IncomingMessage, response: ServerResponse, maxBytes: number): undefined {
  sendTooLarge(response, maxBytes);
  let discarded = 0;
  request.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) request.socket.destroy();
  });
  request.on("error", () => undefined);
  request.resume();
  return undefined;
}
