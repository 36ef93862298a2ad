import type { IncomingMessage, ServerResponse } from "node:http";
import { redactSecrets } from "../errors.js";
import { handleChat } from "./chat-route.js";
import { handleDescribe } from "./describe-route.js";
import { IMAGE_PATH_PREFIX } from "./image-store.js";
import type { GatewayContext } from "./gateway-context.js";
import { AUDIO_PATH_PREFIX } from "./music-clip-view.js";
import { handleMusic } from "./music-routes.js";
import { handleModels } from "./models-route.js";
import { NOT_OFFERED, handleNotOffered } from "./not-offered-route.js";
import { assignRequestIds } from "./request-ids.js";
import { sendError } from "./send-response.js";
import { serveAudio } from "./serve-audio.js";

const MUSIC_PREFIX = "/musicapi/api/";

/** The gateway's single request listener: routes by method and path. */
export function createRequestHandler(context: GatewayContext) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    route(context, request, response).catch((error: unknown) => {
      // A bug in the gateway must still answer in the wire format, and never leak a key.
      const detail = redactSecrets(error instanceof Error ? error.message : String(error));
      sendError(response, 500, "upstream_error", `Internal error in the local gateway: ${detail}`);
    });
  };
}

async function route(context: GatewayContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = request.url ?? "/";
  const queryAt = url.indexOf("?");
  let path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  const method = request.method ?? "GET";

  if (path === "/v1/chat/completions") {
    if (method === "POST") return handleChat(context, request, response);
    return methodNotAllowed(request, response, "POST");
  }
  if (path === "/v1/models" || path.startsWith("/v1/models/")) {
    if (method !== "GET") return methodNotAllowed(request, response, "GET");
    return handleModels(
      context,
      request,
      response,
      path === "/v1/models" ? undefined : path.slice("/v1/models/".length),
    );
  }
  if (path.startsWith(MUSIC_PREFIX)) {
    const query = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1));
    return handleMusic(context, request, response, path.slice(MUSIC_PREFIX.length), query);
  }
  if (path.startsWith(AUDIO_PATH_PREFIX) && (method === "GET" || method === "HEAD")) {
    return serveAudio(context, request, response, path.slice(AUDIO_PATH_PREFIX.length));
  }
  if (path.startsWith(IMAGE_PATH_PREFIX) && (method === "GET" || method === "HEAD")) {
    request.resume();
    return context.images.serve(request, response, path.slice(IMAGE_PATH_PREFIX.length));
  }
  const notOffered = NOT_OFFERED[path];
  if (notOffered) return handleNotOffered(context, request, response, notOffered);
  if ((path === "/v1" || path === "/") && (method === "GET" || method === "HEAD")) {
    return handleDescribe(request, response, context.rootURL);
  }
  assignRequestIds(response);
  request.resume();
  sendError(response, 404, "not_found", `No endpoint ${method} ${path}. GET /v1 describes the interface.`);
}

function methodNotAllowed(request: IncomingMessage, response: ServerResponse, allowed: string): void {
  assignRequestIds(response);
  request.resume();
  response.setHeader("allow", allowed);
  sendError(response, 405, "not_found", `Use ${allowed} for this endpoint.`);
}
