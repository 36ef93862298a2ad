import type { IncomingMessage, ServerResponse } from "node:http";
import { authorize } from "./authorize.js";
import type { GatewayContext } from "./gateway-context.js";
import { assignRequestIds } from "./request-ids.js";
import { sendError } from "./send-response.js";

/** Paths of the wire format that this gateway does not offer (spec, section 1). */
export const NOT_OFFERED: Readonly<Record<string, string>> = {
  "/v1/embeddings": "embeddings",
  "/v1/audio/speech": "speech synthesis",
  "/v1/audio/transcriptions": "speech-to-text",
  "/v1/audio/translations": "speech-to-text",
};

/** Answers 404 not_offered for an endpoint the gateway does not have, so clients stop expecting it. */
export function handleNotOffered(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  what: string,
): void {
  assignRequestIds(response);
  if (!authorize(context, request, response)) return;
  // The body is not needed; discarding it keeps the connection usable.
  request.resume();
  sendError(
    response,
    404,
    "not_offered",
    `This gateway does not offer ${what}: there is no embeddings, speech synthesis or speech-to-text endpoint. Use chat completions (audio input with gamma-2.5 models) instead.`,
  );
}
