import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { findModel, suggestModels, type ModelInfo } from "../catalog/models.js";
import { countPromptTokens } from "../gateway/prompt-tokens.js";
import { SvcFlowError } from "../errors.js";
import { authorize } from "./authorize.js";
import { chatCost, type BilledEntry } from "./billing.js";
import { checkChatRequest } from "./check-chat-request.js";
import { cleanDialect, type Dialect } from "./dialects/index.js";
import { replyParts } from "./dialects/reply-parts.js";
import { fetchImage } from "./fetch-image.js";
import { hashString, type FaultDecision } from "./faults.js";
import type { GatewayContext } from "./gateway-context.js";
import {
  applyIdempotencyKey,
  hasIdempotencyKey,
  sentIdempotencyKey,
  settleClaim,
  storingHold,
  withoutIdempotencyKey,
} from "./idempotent-request.js";
import type { KeyAccount } from "./key-account.js";
import type { QuotaHold } from "./key-account.js";
import type { IdempotencyClaim } from "./idempotency-store.js";
import type { RequestIds } from "./request-ids.js";
import { parseChatRequest } from "./parse-chat-request.js";
import { readJsonBody } from "./read-json-body.js";
import { RenderedReply, type CompletionMeta } from "./rendered-reply.js";
import { deferRequestIds, setBackend } from "./request-ids.js";
import { sendError, sendJsonText, sendSchemaError } from "./send-response.js";
import { streamCompletion, streamDialect, streamFrames } from "./stream-completion.js";
import { sseText } from "./write-sse.js";
import { simulateChat } from "./simulate/index.js";

/** `POST /v1/chat/completions`: auth, limits, idempotency, validation, faults, simulation, billing, reply. */
export async function handleChat(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const ids = deferRequestIds(response);
  const keyed = hasIdempotencyKey(context, request);
  const admission = authorize(context, request, response, { deferDeactivation: keyed });
  if (!admission) return;
  const { account } = admission;
  const body = await readJsonBody(request, response, context.config.limits);
  if (!body) return;
  const idempotency = keyed
    ? await applyIdempotencyKey(context, account, request, response, "/v1/chat/completions", body.value)
    : withoutIdempotencyKey(account, response);
  if (idempotency.done) return;
  await settleClaim(idempotency, () =>
    answerChat(context, request, response, { account, body: body.value, ids, claim: idempotency.claim }),
  );
}

/** What answerChat works on: the admitted request's key account, body, ids and idempotency claim. */
interface ChatAdmitted {
  readonly account: KeyAccount;
  readonly body: unknown;
  readonly ids: RequestIds;
  readonly claim: IdempotencyClaim | undefined;
}

async function answerChat(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  admitted: ChatAdmitted,
): Promise<void> {
  const { account, claim } = admitted;
  const { requestId, compactId } = admitted.ids;
  // A relay whose upstream call runs on bills a call whose client left (config billAfterDisconnect).
  const left = () => response.destroyed && !context.config.billAfterDisconnect;
  const parsed = parseChatRequest(admitted.body);
  if (!parsed.success) return sendSchemaError(response, parsed.error, context.dialects.forFamily());
  const chat = parsed.data;
  const model = findModel(chat.model);
  if (!model || !account.allows(model.id))
    return sendModelNotFound(response, chat.model, model, context.dialects.forFamily(model?.family));
  setBackend(response, model.family);
  const dialect = context.dialects.forFamily(model.family);

  const problem = checkChatRequest(chat, model);
  if (problem) return sendError(response, 400, problem.code, problem.message, { param: problem.param, dialect });
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
    return sendError(response, 400, "unsupported_media", error.message, { param: "messages", dialect });
  }
  if (model.contextWindow !== undefined && promptTokens > model.contextWindow) {
    const message = `The prompt has ${promptTokens} tokens, more than ${model.id}'s context window of ${model.contextWindow}. Shorten it or use a model with a larger window.`;
    return sendError(response, 400, "context_length_exceeded", message, { param: "messages", dialect });
  }

  const fault = context.faults.decide(model.id);
  if (fault.latencyMs > 0) await sleep(fault.latencyMs);
  if (left()) return;
  if (fault.kind === "error") {
    const message = `The upstream ${model.id} backend failed (injected fault, status ${fault.status}).`;
    const failure = { status: fault.status, code: "upstream_error", message };
    // Some relays have sent their 200 before the upstream fails, and report it inside the stream.
    const inStream = chat.stream
      ? dialect.streamError(failure, {
          id: `chatcmpl-${compactId}`,
          created: Math.floor(Date.now() / 1000),
          model: model.servedAs,
        })
      : undefined;
    if (inStream) return streamFrames(response, inStream);
    return sendError(response, fault.status, "upstream_error", message, { dialect });
  }
  if (fault.kind === "rate_limit") {
    const message = `The upstream ${model.id} backend is rate limited (injected fault). Retry after the Retry-After delay.`;
    return sendError(response, 429, "rate_limit_exceeded", message, { retryAfterS: fault.retryAfterS, dialect });
  }

  if (!rendered) {
    const imageLimits = {
      maxBytes: context.config.limits.maxBodyBytes,
      allowPrivateAddresses: context.allowPrivateImageURLs,
    };
    const seed = hashString(key, context.config.faults.seed);
    try {
      const reply = await simulateChat(chat, model, {
        seed,
        fetchImage(url) {
          return fetchImage(url, imageLimits);
        },
      });
      const content =
        context.config.imageLinks && reply.images > 0
          ? context.images.linkImages(reply.content, context.rootURL)
          : reply.content;
      rendered = new RenderedReply(content === reply.content ? reply : { ...reply, content }, promptTokens);
    } catch (error) {
      if (!(error instanceof SvcFlowError)) throw error;
      return sendError(response, 400, "invalid_parameter", error.message, { param: "messages", dialect });
    }
    context.replies.set(key, rendered, seed);
    if (left()) return;
  }
  const { reply } = rendered;
  const usage = { promptTokens, completionTokens: reply.completionTokens, images: reply.images };
  const cost = chatCost(model, usage, context.prices);
  // Billed at its actual cost once answered; refused up front only when the balance cannot pay
  // even the prompt (spec 5.4, as relays keep quota).
  const promptCost = chatCost(model, { promptTokens, completionTokens: 0, images: 0 }, context.prices);
  const quotaHold = account.hold(cost, promptCost);
  if (!quotaHold) {
    const message = `Insufficient quota: the prompt alone costs ¥${promptCost}, more than the ¥${account.remaining()} left on this key. Top up the key or use a cheaper model; retrying will not help.`;
    return sendError(response, 429, "insufficient_quota", message, { dialect });
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
    idempotencyKey: sentIdempotencyKey(request),
  };
  const meta: CompletionMeta = {
    id: `chatcmpl-${compactId}`,
    created: Math.floor(Date.now() / 1000),
    model: model.servedAs,
  };
  const includeUsage = chat.stream_options?.include_usage === true;
  if (dialect !== cleanDialect) {
    const parts = replyParts(reply, promptTokens, meta, chat.model);
    const stream = chat.stream ? dialect.stream(parts, includeUsage) : undefined;
    const text = stream
      ? sseText(stream.frames, stream.end)
      : `${dialect.jsonPrefix ?? ""}${JSON.stringify(dialect.json(parts))}`;
    const hold = storingHold(quotaHold, claim, response, () =>
      stream ? { kind: "sse-text", text } : { kind: "json", text },
    );
    if (stream) return streamDialect(response, { stream, fault, hold, entry });
    return sendJsonReply(response, fault, hold, entry, text, left());
  }
  // Billed means stored: a repeat of the Idempotency-Key replays exactly what this request sent.
  const hold = storingHold(quotaHold, claim, response, () =>
    chat.stream
      ? { kind: "sse", events: rendered.chunks(meta, includeUsage).chunks }
      : { kind: "json", text: rendered.json(meta) },
  );

  if (chat.stream) {
    await streamCompletion(response, { meta, rendered, includeUsage, fault, hold, entry });
    return;
  }
  sendJsonReply(response, fault, hold, entry, rendered.json(meta), left());
}

function sendJsonReply(
  response: ServerResponse,
  fault: FaultDecision,
  hold: QuotaHold,
  entry: Omit<BilledEntry, "yuan" | "refunded">,
  text: string,
  left: boolean,
): void {
  if (fault.kind === "drop" || left) {
    hold.release();
    response.socket?.destroy();
    return;
  }
  hold.commit(entry);
  sendJsonText(response, 200, text);
}

function sendModelNotFound(
  response: ServerResponse,
  requested: string,
  model: ModelInfo | undefined,
  dialect: Dialect,
): void {
  const message = model
    ? `This key may not call ${model.id}. GET /v1/models lists the models it may call.`
    : `The model "${requested}" does not exist. Did you mean ${suggestModels(requested).join(", ")}? GET /v1/models lists the models this key may call.`;
  sendError(response, 404, "model_not_found", message, {
    param: "model",
    dialect,
    ...(model ? { modelNotAllowed: requested } : {}),
  });
}
