import {
  AuthenticationError,
  BadRequestError,
  ContextWindowError,
  KeyDeactivatedError,
  ModelAccessError,
  NotOfferedError,
  QuotaExceededError,
  RateLimitError,
  SvcFlowError,
  TimeoutError,
  UnknownModelError,
  UpstreamError,
  redactSecrets,
  type SvcFlowErrorOptions,
} from "../errors.js";
import { jsonTextOf } from "./body-kind.js";
import { readGatewayIds, readRetryAfterS, type HeaderSource } from "./gateway-ids.js";
import { errorBodySchema } from "./wire.js";

/** A response the gateway answered with an error, or an error event inside a stream. */
export interface FailedResponse {
  /** HTTP status; absent for an error event inside a 200 stream. */
  readonly status?: number;
  readonly headers?: HeaderSource;
  /** The body as text, or already parsed JSON. */
  readonly body: unknown;
  /** The key that was sent, removed from the message even where the pattern would miss it. */
  readonly apiKey?: string;
}

type Make = (summary: string, options: SvcFlowErrorOptions) => SvcFlowError;

const auth: Make = (summary, options) =>
  new AuthenticationError(
    `${summary} The gateway rejected the API key. Check SVC_API_KEY or the apiKey option.`,
    options,
  );
const deactivated: Make = (summary, options) =>
  new KeyDeactivatedError(
    `${summary} The API key is deactivated because its balance is spent. Top up the key or use another one.`,
    options,
  );
const rateLimited: Make = (summary, options) =>
  new RateLimitError(
    `${summary} A rate or concurrency limit was hit. Retry after a backoff${options.retryAfterS === undefined ? "" : ` of at least ${options.retryAfterS} s`}.`,
    options,
  );
const quota: Make = (summary, options) =>
  new QuotaExceededError(
    `${summary} The key's quota cannot cover this request. Top up the key; retrying will not help.`,
    options,
  );
const modelAccess: Make = (summary, options) =>
  new ModelAccessError(
    `${summary} This key may not call this model; a fallback model is tried when one is set. Run \`svc-flow models\` to see the models it may call.`,
    options,
  );
const unknownModel: Make = (summary, options) =>
  new UnknownModelError(
    `${summary} The model is unknown or not enabled for this key. Run \`svc-flow models\` to see the models this key may call.`,
    options,
  );
const notOffered: Make = (summary, options) =>
  new NotOfferedError(
    `${summary} The gateway does not offer this operation (no embeddings, speech synthesis or speech-to-text).`,
    options,
  );
const contextWindow: Make = (summary, options) =>
  new ContextWindowError(
    `${summary} The prompt does not fit the model's context window. Shorten it or pick a model with a larger window.`,
    options,
  );
const upstream: Make = (summary, options) =>
  new UpstreamError(`${summary} A temporary upstream failure. Retry later or fall back to another model.`, options);
const badRequest =
  (code: string): Make =>
  (summary, options) =>
    new BadRequestError(`${summary} The gateway rejected the request. Fix the request and send it again.`, {
      ...options,
      code,
    });

// A 401 or 403 page (Cloudflare's "Sorry, you have been blocked", an nginx rule) comes from a proxy or
// firewall in front of the gateway, which never saw the key: blaming the key sends the user the wrong way.
const refusedByProxy: Make = (summary, options) =>
  new UpstreamError(
    `${summary} A proxy or firewall in front of the gateway refused the request with an HTML page, so the API key was not checked. Check the base URL, and whether your network, VPN or region is blocked there.`,
    { ...options, code: "blocked_by_proxy", retryable: false },
  );

const contentFiltered: Make = (summary, options) =>
  new BadRequestError(`${summary} The prompt was refused by a content filter. Change the prompt and send it again.`, {
    ...options,
    code: "content_filtered",
  });

// Codes (and types) the local gateway and the relays send (docs/dialects.md); anything else falls
// back to the status and the words of the message below.
// Words relays use, in English and Chinese (one-api and new-api answer in both).
const QUOTA_WORDS =
  /quota|insufficient (?:user )?(?:balance|credits?|funds)|balance|billing|credits?|budget|余额|额度/i;
const DEACTIVATED_WORDS = /deactivat|disabled|suspend|exhaust|blocked|expired|用尽|禁用|过期|封禁/i;
const MODEL_WORDS = /\bmodels?\b|模型|deployment/i;
const NO_ACCESS_WORDS =
  /not allowed|no access|not permitted|may not|cannot use|can only access|access denied|forbidden|无权|不允许|没有权限/i;
// A refused prompt (OpenRouter's 403 moderation flag, Azure's content management policy): the
// request must change; neither the key nor a retry will help.
const FLAGGED_WORDS = /moderation|flagged|content (?:management )?policy|guardrail|内容审核|敏感/i;
// A 429 that speaks of a rate or a time to wait is a rate limit even when it names a quota: Azure's
// says "exceeded token rate limit ... Please retry after 54 seconds" and links to its quota increase
// form; Gemini's per-minute limits say "You exceeded your current quota ... Please retry in 41s".
const RATE_WORDS = /rate limit|too many requests|retry (?:after|in) \d|per minute|请求过于频繁|频率/i;
// Links are no part of what a message says (Azure's https://aka.ms/oai/quotaincrease).
const LINK = /\bhttps?:\/\/\S+/g;
const MISSING_WORDS = /not found|not exist|does not exist|no such|unknown|not a valid|invalid model|不存在/i;

// A generic "authentication" type says the key was refused, not why: a spent key's message says so.
function keyRejected(summary: string, options: SvcFlowErrorOptions): SvcFlowError {
  return DEACTIVATED_WORDS.test(summary) || QUOTA_WORDS.test(summary)
    ? deactivated(summary, options)
    : auth(summary, options);
}

const BY_CODE: Readonly<Record<string, Make>> = {
  invalid_api_key: auth,
  authentication_error: keyRejected,
  unauthorized: keyRejected,
  auth_error: keyRejected,
  key_deactivated: deactivated,
  account_deactivated: deactivated,
  rate_limit_exceeded: rateLimited,
  concurrency_limit_exceeded: rateLimited,
  rate_limited: rateLimited,
  throttling_error: rateLimited,
  insufficient_quota: quota,
  insufficient_user_quota: quota,
  pre_consume_token_quota_failed: quota,
  quota_exceeded: quota,
  billing_hard_limit_reached: quota,
  budget_exceeded: quota,
  insufficient_balance: quota,
  model_not_found: unknownModel,
  DeploymentNotFound: unknownModel,
  model_not_allowed: modelAccess,
  key_model_access_denied: modelAccess,
  team_model_access_denied: modelAccess,
  not_offered: notOffered,
  context_length_exceeded: contextWindow,
  upstream_error: upstream,
  server_error: upstream,
  service_unavailable: upstream,
  invalid_parameter: badRequest("invalid_parameter"),
  invalid_json: badRequest("invalid_json"),
  request_too_large: badRequest("request_too_large"),
  unsupported_media: badRequest("unsupported_media"),
  not_found: badRequest("not_found"),
  content_filter: contentFiltered,
  // Google's names, from Gemini's OpenAI-compatible layer: RESOURCE_EXHAUSTED is its rate limit
  // ("You've exceeded the rate limit", the Gemini API's troubleshooting page), whatever words follow.
  RESOURCE_EXHAUSTED: rateLimited,
  UNAVAILABLE: upstream,
  UNAUTHENTICATED: keyRejected,
  API_KEY_INVALID: auth,
  idempotency_key_reused: badRequest("idempotency_key_reused"),
};

/** Turns a failed response into the right error class; the only place that decides retryability. */
export function errorFromResponse(response: FailedResponse): SvcFlowError {
  const detail = readDetail(response.body, (text) => clip(text, response.apiKey));
  // OpenRouter and one-api put the status in `error.code` as a number; inside a 200 stream (or
  // a 200 with an error body) that number is the only status there is.
  const codeStatus = detail.code !== undefined && /^[1-5]\d\d$/.test(detail.code) ? Number(detail.code) : undefined;
  const status =
    response.status === undefined || response.status === 200 ? (codeStatus ?? response.status) : response.status;
  const retryAfterS = readRetryAfterS(response.headers);
  const options: SvcFlowErrorOptions = {
    ...readGatewayIds(response.headers),
    ...(response.status === undefined ? {} : { status: response.status }),
    ...(retryAfterS === undefined ? {} : { retryAfterS }),
  };
  const summary = describe(response.status, detail);

  const make =
    (detail.reason === undefined ? undefined : BY_CODE[detail.reason]) ??
    (detail.code === undefined ? undefined : BY_CODE[detail.code]) ??
    (detail.type === undefined ? undefined : BY_CODE[detail.type]);
  if (make !== undefined) return make(summary, options);
  if (detail.page && (status === 401 || status === 403)) return refusedByProxy(summary, options);
  return fromStatus(status === 200 ? undefined : status, detail, summary, options);
}

function fromStatus(
  status: number | undefined,
  detail: Detail,
  summary: string,
  options: SvcFlowErrorOptions,
): SvcFlowError {
  const text = `${detail.code ?? ""} ${detail.type ?? ""} ${detail.message}`.replace(LINK, " ");
  const mentionsQuota = QUOTA_WORDS.test(text);
  const mentionsModel = MODEL_WORDS.test(text);
  const deniesModel = mentionsModel && NO_ACCESS_WORDS.test(text);
  const missingModel = mentionsModel && MISSING_WORDS.test(text);
  if (status === undefined) {
    // An error inside a stream: the words are all there is.
    if (mentionsQuota) return quota(summary, options);
    return upstream(summary, options);
  }
  if (status === 401) {
    if (deniesModel) return modelAccess(summary, options);
    return DEACTIVATED_WORDS.test(text) || mentionsQuota ? deactivated(summary, options) : auth(summary, options);
  }
  if (status === 402) return quota(summary, options);
  if (status === 403) {
    // Relays answer 403 for a spent quota (one-api, new-api) and for a model the token may not use.
    if (mentionsQuota) return quota(summary, options);
    if (FLAGGED_WORDS.test(text)) return contentFiltered(summary, options);
    if (mentionsModel) return modelAccess(summary, options);
    return auth(summary, options);
  }
  if (status === 400 && mentionsQuota && !mentionsModel) return quota(summary, options);
  if (status === 400 && missingModel) return unknownModel(summary, options);
  if (status === 404) return mentionsModel ? unknownModel(summary, options) : badRequest("not_found")(summary, options);
  if (status === 408)
    return new TimeoutError(`${summary} The gateway timed out waiting for the request. Retry it.`, options);
  if (status === 413) return badRequest("request_too_large")(summary, options);
  if (status === 415) return badRequest("unsupported_media")(summary, options);
  if (status === 429)
    return mentionsQuota && !RATE_WORDS.test(text) ? quota(summary, options) : rateLimited(summary, options);
  if (status === 501) return notOffered(summary, options);
  if (status >= 500) return upstream(summary, options);
  if (status >= 400) return badRequest("bad_request")(summary, options);
  return new SvcFlowError("unexpected_status", `${summary} The gateway answered with an unexpected status.`, options);
}

interface Detail {
  readonly message: string;
  /** The body was an HTML page, not the gateway's JSON. */
  readonly page?: boolean;
  readonly code?: string;
  readonly type?: string;
  readonly param?: string;
  /** Google's `details[].reason` (`API_KEY_INVALID`). */
  readonly reason?: string;
}

function readDetail(body: unknown, clean: (text: string) => string): Detail {
  let value = body;
  if (typeof body === "string" || body instanceof Uint8Array) {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body);
    try {
      value = JSON.parse(jsonTextOf(text));
    } catch {
      const message = clean(pageText(text));
      return HTML_PAGE.test(text) ? { message, page: true } : { message };
    }
  }
  const parsed = errorBodySchema.safeParse(value);
  if (!parsed.success) return { message: clean(typeof value === "string" ? value : (JSON.stringify(value) ?? "")) };
  const { message, code, type, param, reason } = parsed.data.error;
  return {
    message: clean(message),
    ...(code ? { code } : {}),
    ...(reason ? { reason } : {}),
    // LiteLLM sends Python's None as the string "None".
    ...(type && type !== "None" ? { type } : {}),
    ...(param && param !== "None" ? { param } : {}),
  };
}

const HTML_PAGE = /^\s*<(?:!doctype html|html|head|body|title)\b/i;

// The words of a page without its markup, scripts and styles (Cloudflare's pages carry kilobytes of
// script, which would fill the message before the words that say what happened).
function pageText(page: string): string {
  return page
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[^>]*>/g, " ");
}

function describe(status: number | undefined, detail: Detail): string {
  const where = status === undefined ? "Error event in the stream" : `HTTP ${status}`;
  // A code that only repeats the status (Azure's "429", Gemini's 400) says nothing more.
  const code = detail.code === undefined || detail.code === String(status) ? "" : ` ${detail.code}`;
  const param = detail.param === undefined ? "" : ` (parameter "${detail.param}")`;
  const said = detail.message === "" ? "" : `: ${detail.message}`;
  return `${where}${code}${param}${said}.`.replace(/\.\.$/, ".");
}

// Gateways echo keys in messages ("Incorrect API key provided: sk-..."); the message is redacted
// and shortened before it can reach a log.
function clip(text: string, apiKey: string | undefined): string {
  const withoutKey = apiKey === undefined || apiKey === "" ? text : text.split(apiKey).join("sk-[redacted]");
  const flat = redactSecrets(withoutKey).replace(/\s+/g, " ").trim();
  return flat.length > 500 ? `${flat.slice(0, 500)}…` : flat;
}
