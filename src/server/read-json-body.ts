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

/** Reads and parses a JSON body within a size limit; answers 413 or 400 itself and resolves undefined then. */
export function readJsonBody(request: IncomingMessage, response: ServerResponse, maxBytes: number): Promise<JsonBody | undefined> {
  return new Promise((resolve) => {
    if (declaresTooLarge(request, maxBytes)) {
      resolve(refuse(request, response, maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    // Inline listeners guarded by `settled` rather than named ones taken off again: this runs per
    // request, and tsx gives every named arrow its name with a defineProperty.
    request.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      settled = true;
      chunks.length = 0;
      resolve(refuse(request, response, maxBytes));
    });
    request.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(parseBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), response));
    });
    request.on("error", () => {
      if (settled) return;
      settled = true;
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
