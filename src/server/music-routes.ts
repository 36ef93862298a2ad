import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { MusicOperation } from "../catalog/prices.js";
import { MUSIC_PATHS } from "../gateway/wire.js";
import { authorize } from "./authorize.js";
import { musicCost } from "./billing.js";
import type { GatewayContext } from "./gateway-context.js";
import type { KeyAccount, QuotaHold } from "./key-account.js";
import { hashString } from "./faults.js";
import type { IdempotencyClaim } from "./idempotency-store.js";
import {
  applyIdempotencyKey,
  hasIdempotencyKey,
  sentIdempotencyKey,
  settleClaim,
  storeResponse,
} from "./idempotent-request.js";
import { clipView } from "./music-clip-view.js";
import { CLIP_OPERATIONS, planMusicJob } from "./plan-music-job.js";
import { readJsonBody } from "./read-json-body.js";
import { assignRequestIds } from "./request-ids.js";
import { sendError, sendJson, sendJsonText } from "./send-response.js";
import { writeLyrics } from "./simulate/index.js";

const lyricsSchema = z.looseObject({ prompt: z.string().min(1).max(3000) });

/** Everything under `{root}/musicapi/api/`: clip jobs, polling, lyrics and the quota report. */
export async function handleMusic(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  name: string,
  query: URLSearchParams,
): Promise<void> {
  const { requestId } = assignRequestIds(response);
  const operation = CLIP_OPERATIONS[name] ?? (name === MUSIC_PATHS.lyrics ? "lyrics" : undefined);
  // Billed calls may replay to a deactivated key (the call that spent the quota, repeated).
  const admission = authorize(context, request, response, {
    deferDeactivation: operation !== undefined && request.method === "POST" && hasIdempotencyKey(context, request),
  });
  if (!admission) return;
  const { account } = admission;
  if (name === MUSIC_PATHS.get || name === MUSIC_PATHS.getLimit) {
    if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed(response, "GET", name);
    return name === MUSIC_PATHS.get
      ? handleGet(context, response, account, query)
      : handleLimit(context, response, account);
  }
  if (!operation) {
    return sendError(
      response,
      404,
      "not_found",
      `No music operation "${name}". Paths: ${Object.values(MUSIC_PATHS).join(", ")}.`,
    );
  }
  if (request.method !== "POST") return methodNotAllowed(response, "POST", name);
  const body = await readJsonBody(request, response, context.config.limits);
  if (!body) return;
  const idempotency = await applyIdempotencyKey(
    context,
    account,
    request,
    response,
    `/musicapi/api/${name}`,
    body.value,
  );
  if (idempotency.done) return;
  await settleClaim(idempotency, () =>
    startMusicCall(context, request, response, {
      account,
      operation,
      body: body.value,
      claim: idempotency.claim,
      requestId,
    }),
  );
}

/** What startMusicCall works on: a billable music call admitted under its key and idempotency claim. */
interface MusicCall {
  readonly account: KeyAccount;
  readonly operation: MusicOperation;
  readonly body: unknown;
  readonly claim: IdempotencyClaim | undefined;
  readonly requestId: string;
}

function startMusicCall(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  call: MusicCall,
): void {
  const { account, operation, claim, requestId } = call;
  const idempotencyKey = sentIdempotencyKey(request);
  if (operation === "lyrics") {
    const parsed = lyricsSchema.safeParse(call.body);
    if (!parsed.success)
      return sendError(response, 400, "invalid_parameter", "Send a JSON body with a non-empty prompt.", {
        param: "prompt",
      });
    const hold = holdOrRefuse(context, response, account, operation);
    if (!hold) return;
    hold.commit({ requestId, kind: "music", operation, idempotencyKey });
    const text = writeLyrics(parsed.data.prompt, hashString(parsed.data.prompt, context.config.faults.seed));
    const title =
      text
        .split("\n")
        .find((line) => line.trim() && !line.startsWith("["))
        ?.trim() ?? "";
    return sendBilled(response, claim, requestId, { id: requestId, status: "complete", title, text });
  }

  const plan = planMusicJob(operation, call.body, account, context.music);
  if (!plan.ok) {
    const code = plan.status === 404 ? "not_found" : "invalid_parameter";
    return sendError(response, plan.status, code, plan.message, { param: plan.param });
  }
  if (plan.credits > context.music.creditsLeft) {
    return sendError(
      response,
      503,
      "upstream_error",
      "The music service is out of capacity (credits_left is too low); the call was not billed. Try again later.",
    );
  }
  const hold = holdOrRefuse(context, response, account, operation);
  if (!hold) return;
  // Billed before the job starts, so a job that fails at once is refunded against this entry.
  hold.commit({ requestId, kind: "music", operation, idempotencyKey });
  const clips = context.music.submit(account, requestId, plan.credits, plan.specs);
  sendBilled(
    response,
    claim,
    requestId,
    clips.map((clip) => clipView(clip, context.rootURL)),
  );
}

// A billed answer is stored for repeats of its Idempotency-Key before it goes out.
function sendBilled(
  response: ServerResponse,
  claim: IdempotencyClaim | undefined,
  requestId: string,
  body: unknown,
): void {
  const text = JSON.stringify(body);
  storeResponse(claim, response, requestId, { kind: "json", text });
  sendJsonText(response, 200, text);
}

function holdOrRefuse(
  context: GatewayContext,
  response: ServerResponse,
  account: KeyAccount,
  operation: MusicOperation,
): QuotaHold | undefined {
  const cost = musicCost(operation, context.prices);
  const hold = account.hold(cost);
  if (!hold) {
    sendError(
      response,
      429,
      "insufficient_quota",
      `This music call costs ¥${cost}, more than the ¥${account.remaining()} left on this key. Top up the key; retrying will not help.`,
    );
  }
  return hold;
}

function handleGet(
  context: GatewayContext,
  response: ServerResponse,
  account: KeyAccount,
  query: URLSearchParams,
): void {
  const ids = (query.get("ids") ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  if (ids.length === 0) {
    return sendError(response, 400, "invalid_parameter", "Send the clip ids to poll: get?ids=ID1,ID2.", {
      param: "ids",
    });
  }
  const clips = ids.map((id) => context.music.clip(id, account));
  const unknown = ids.filter((_, index) => clips[index] === undefined);
  if (unknown.length > 0) {
    return sendError(
      response,
      404,
      "not_found",
      `No clip ${unknown.map((id) => `"${id}"`).join(", ")} for this key. Use ids that generate returned.`,
      { param: "ids" },
    );
  }
  sendJson(
    response,
    200,
    clips.map((clip) => clipView(clip!, context.rootURL)),
  );
}

function handleLimit(context: GatewayContext, response: ServerResponse, account: KeyAccount): void {
  const total = context.config.music.credits;
  sendJson(response, 200, {
    credits_left: context.music.creditsLeft,
    period: "day",
    monthly_limit: total,
    monthly_usage: total - context.music.creditsLeft,
    svc_key_quota: account.remaining(),
  });
}

function methodNotAllowed(response: ServerResponse, allowed: string, name: string): void {
  response.setHeader("allow", allowed);
  sendError(response, 405, "not_found", `${name} takes ${allowed}.`);
}
