import type { IncomingMessage, ServerResponse } from "node:http";
import { findModel, listModels, type ModelInfo } from "../catalog/models.js";
import { authorize } from "./authorize.js";
import type { GatewayContext } from "./gateway-context.js";
import type { KeyAccount } from "./key-account.js";
import { assignRequestIds } from "./request-ids.js";
import { sendError, sendJson } from "./send-response.js";

// A fixed creation time keeps the list byte-identical between runs.
const CREATED = 1_767_225_600;

function modelObject(model: ModelInfo) {
  return { id: model.id, object: "model" as const, created: CREATED, owned_by: model.family };
}

// The list depends only on the key, so it is built once per key.
const lists = new WeakMap<KeyAccount, string>();

/** `GET /v1/models` (the models the key may call) and `GET /v1/models/{id}`. */
export function handleModels(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  id?: string,
): void {
  assignRequestIds(response);
  const admission = authorize(context, request, response);
  if (!admission) return;
  const { account } = admission;
  if (id === undefined) {
    let text = lists.get(account);
    if (text === undefined) {
      const data = listModels()
        .filter((model) => account.allows(model.id))
        .map(modelObject);
      text = JSON.stringify({ object: "list", data });
      lists.set(account, text);
    }
    response.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
    });
    response.end(text);
    return;
  }
  const model = findModel(decodeURIComponent(id));
  if (!model || !account.allows(model.id)) {
    sendError(
      response,
      404,
      "model_not_found",
      `The model "${id}" does not exist or this key may not call it. GET /v1/models lists the models it may call.`,
      { param: "model" },
    );
    return;
  }
  sendJson(response, 200, modelObject(model));
}
