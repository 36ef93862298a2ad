import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { findModel, suggestModels, type ModelInfo } from "../catalog/models.js";
import { countPromptTokens } from "../catalog/tokens.js";
import { SvcFlowError } from "../errors.js";
import { authorize } from "./authorize.js";
import { chatCost } from "./billing.js";
import { checkChatRequest } from "./check-chat-request.js";
import { fetchImage } from "./fetch-image.js";
import { hashString } from "./faults.js";
import type { GatewayContext } from "./gateway-context.js";
import { applyIdempotencyKey, hasIdempotencyKey, storingHold, withoutIdempotencyKey } from "./idempotent-request.js";
import { parseChatRequest } from "./parse-chat-request.js";
import { readJsonBody } from "./read-json-body.js";
import { RenderedReply, type CompletionMeta } from "./rendered-reply.js";
import { deferRequestIds, setBackend } from "./request-ids.js";
import { sendError, sendJsonText, sendSchemaError } from "./send-response.js";
import { streamCompletion } from "./stream-completion.js";
import { simulateChat } from "./simulate/index.js";

/** `POST /v1/chat/completions`: auth, limits, idempotency, validation, faults, simulation, billing, reply. */
export async function handleChat(context: GatewayContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { requestId, compactId } = deferRequestIds(response);
  const keyed = hasIdempotencyKey(request);
  const admission = authorize(context, request, response, { deferDeactivation: keyed });
  if (!admission) return;
  const { account } = admission;
  const body = await readJsonBody(request, response, context.config.limits.maxBodyBytes);
  if (!body) return;
  const idempotency = keyed
    ? await applyIdempotencyKey(context, account, request, response, "/v1/chat/completions", body.value)
    : withoutIdempotencyKey(account, response);
  if (idempotency.done) return;
  const parsed = parseChatRequest(body.value);
  if (!parsed.success) return sendSchemaError(response, parsed.error);
  const chat = parsed.data;
  const model = findModel(chat.model);
  if (!model || !account.allows(model.id)) return sendModelNotFound(response, chat.model, model);
  setBackend(response, model.family);

  const problem = checkChatRequest(chat, model);
  if (problem) return sendError(response, 400, problem.code, problem.message, { param: problem.param });
  // Everything but the transport options decides the reply, so it keys the reply cache and seeds
  // the simulation: the same request gets the same reply, streamed or not.
  const { stream: _stream, stream_options: _streamOptions, user: _user, ...decisive } = chat;
  const key = JSON.stringify(decisive);
  let rendered = context.replies.get(key);
  let promptTokens: number;
  try {
    promptTokens = rendered?.promptTokens ?? countPromptTokens(chat);
  } catch (error) {
    if (!(error instanceof SvcFlowError)) throw error;
    return sendError(response, 400, "unsupported_media", error.message, { param: "messages" });
  }
  if (model.contextWindow !== undefined && promptTokens > model.contextWindow) {
    const message = `The prompt has ${promptTokens} tokens, more than ${model.id}'s context window of ${model.contextWindow}. Shorten it or use a model with a larger window.`;
    return sendError(response, 400, "context_length_exceeded", message, { param: "messages" });
  }

  const fault = context.faults.decide(model.id);
  if (fault.latencyMs > 0) await sleep(fault.latencyMs);
  if (response.destroyed) return;
  if (fault.kind === "error") {
    const message = `The upstream ${model.id} backend failed (injected fault, status ${fault.status}). Retry with backoff or fall back to another model.`;
    return sendError(response, fault.status, "upstream_error", message);
  }
  if (fault.kind === "rate_limit") {
    const message = `The upstream ${model.id} backend is rate limited (injected fault). Retry after the Retry-After delay.`;
    return sendError(response, 429, "rate_limit_exceeded", message, { retryAfterS: fault.retryAfterS });
  }

  if (!rendered) {
    const imageLimits = { maxBytes: context.config.limits.maxBodyBytes, allowPrivateAddresses: context.allowPrivateImageURLs };
    const seed = hashString(key, context.config.faults.seed);
    try {
      const reply = await simulateChat(chat, model, {
        seed,
        fetchImage(url) {
          return fetchImage(url, imageLimits);
        },
      });
      rendered = new RenderedReply(reply, promptTokens);
    } catch (error) {
      if (!(error instanceof SvcFlowError)) throw error;
      return sendError(response, 400, "invalid_parameter", error.message, { param: "messages" });
    }
    context.replies.set(key, rendered, seed);
    if (response.destroyed) return;
  }
  const { reply } = rendered;
  const usage = { promptTokens, completionTokens: reply.completionTokens, images: reply.images };
  const cost = chatCost(model, usage, context.prices);
  const quotaHold = account.hold(cost);
  if (!quotaHold) {
    const message = `This request costs ¥${cost}, more than the ¥${account.remaining()} left on this key. Top up the key or use a cheaper model; retrying will not help.`;
    return sendError(response, 429, "insufficient_quota", message);
  }
  // Fields listed, not spread: the ledger keeps this object, and a spread is slower to build.
  const entry = {
    requestId,
    kind: "chat" as const,
    model: model.id,
    promptTokens,
    completionTokens: reply.completionTokens,
    images: reply.images,
    reasoningTokens: reply.reasoningTokens,
  };
  const meta: CompletionMeta = { id: `chatcmpl-${compactId}`, created: Math.floor(Date.now() / 1000), model: model.servedAs };
  const includeUsage = chat.stream_options?.include_usage === true;
  // Billed means stored: a repeat of the Idempotency-Key replays exactly what this request sent.
  const hold = storingHold(quotaHold, idempotency.claim, response, () =>
    chat.stream ? { kind: "sse", events: rendered.chunks(meta, includeUsage).chunks } : { kind: "json", text: rendered.json(meta) },
  );

  if (chat.stream) {
    await streamCompletion(response, { meta, rendered, includeUsage, fault, hold, entry });
    return;
  }
  if (fault.kind === "drop" || response.destroyed) {
    hold.release();
    response.socket?.destroy();
    return;
  }
  hold.commit(entry);
  sendJsonText(response, 200, rendered.json(meta));
}

function sendModelNotFound(response: ServerResponse, requested: string, model: ModelInfo | undefined): void {
  const message = model
    ? `This key may not call ${model.id}. GET /v1/models lists the models it may call.`
    : `The model "${requested}" does not exist. Did you mean ${suggestModels(requested).join(", ")}? GET /v1/models lists the models this key may call.`;
  sendError(response, 404, "model_not_found", message, { param: "model" });
}
