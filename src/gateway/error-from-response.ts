import {
  AuthenticationError,
  BadRequestError,
  ContextWindowError,
  KeyDeactivatedError,
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
  new AuthenticationError(`${summary} The gateway rejected the API key. Check SVC_API_KEY or the apiKey option.`, options);
const deactivated: Make = (summary, options) =>
  new KeyDeactivatedError(`${summary} The API key is deactivated because its balance is spent. Top up the key or use another one.`, options);
const rateLimited: Make = (summary, options) =>
  new RateLimitError(`${summary} A rate or concurrency limit was hit. Retry after a backoff${options.retryAfterS === undefined ? "" : ` of at least ${options.retryAfterS} s`}.`, options);
const quota: Make = (summary, options) =>
  new QuotaExceededError(`${summary} The key's quota cannot cover this request. Top up the key; retrying will not help.`, options);
const unknownModel: Make = (summary, options) =>
  new UnknownModelError(`${summary} The model is unknown or not enabled for this key. Run \`svc-flow models\` to see the models this key may call.`, options);
const notOffered: Make = (summary, options) =>
  new NotOfferedError(`${summary} The gateway does not offer this operation (no embeddings, speech synthesis or speech-to-text).`, options);
const contextWindow: Make = (summary, options) =>
  new ContextWindowError(`${summary} The prompt does not fit the model's context window. Shorten it or pick a model with a larger window.`, options);
const upstream: Make = (summary, options) =>
  new UpstreamError(`${summary} A temporary upstream failure. Retry later or fall back to another model.`, options);
const badRequest =
  (code: string): Make =>
  (summary, options) =>
    new BadRequestError(`${summary} The gateway rejected the request. Fix the request and send it again.`, { ...options, code });

// Codes the local gateway sends (wire.ts ERROR_CODES) and the usual ones of the wire format; the
// real gateway's codes are not published, so anything else falls back to the status below.
const BY_CODE: Readonly<Record<string, Make>> = {
  invalid_api_key: auth,
  authentication_error: auth,
  unauthorized: auth,
  key_deactivated: deactivated,
  account_deactivated: deactivated,
  rate_limit_exceeded: rateLimited,
  concurrency_limit_exceeded: rateLimited,
  rate_limited: rateLimited,
  insufficient_quota: quota,
  quota_exceeded: quota,
  billing_hard_limit_reached: quota,
  model_not_found: unknownModel,
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
  idempotency_key_reused: badRequest("idempotency_key_reused"),
};

/** Turns a failed response into the right error class; the only place that decides retryability. */
export function errorFromResponse(response: FailedResponse): SvcFlowError {
  const { status } = response;
  const detail = readDetail(response.body, (text) => clip(text, response.apiKey));
  const retryAfterS = readRetryAfterS(response.headers);
  const options: SvcFlowErrorOptions = {
    ...readGatewayIds(response.headers),
    ...(status === undefined ? {} : { status }),
    ...(retryAfterS === undefined ? {} : { retryAfterS }),
  };
  const summary = describe(status, detail);

  const make = (detail.code === undefined ? undefined : BY_CODE[detail.code]) ?? (detail.type === undefined ? undefined : BY_CODE[detail.type]);
  if (make !== undefined) return make(summary, options);
  return fromStatus(status, detail, summary, options);
}

function fromStatus(status: number | undefined, detail: Detail, summary: string, options: SvcFlowErrorOptions): SvcFlowError {
  const text = `${detail.code ?? ""} ${detail.type ?? ""} ${detail.message}`;
  const mentionsQuota = /quota|insufficient|balance|billing|credit|余额|额度/i.test(text);
  const mentionsModel = /\bmodel\b/i.test(text);
  if (status === undefined) return upstream(summary, options);
  if (status === 401) {
    return /deactivat|disabled|suspend|exhaust/i.test(text) || mentionsQuota
      ? deactivated(summary, options)
      : auth(summary, options);
  }
  if (status === 402) return quota(summary, options);
  if (status === 403) return mentionsModel ? unknownModel(summary, options) : auth(summary, options);
  if (status === 404) return mentionsModel ? unknownModel(summary, options) : badRequest("not_found")(summary, options);
  if (status === 408) return new TimeoutError(`${summary} The gateway timed out waiting for the request. Retry it.`, options);
  if (status === 413) return badRequest("request_too_large")(summary, options);
  if (status === 415) return badRequest("unsupported_media")(summary, options);
  if (status === 429) return mentionsQuota ? quota(summary, options) : rateLimited(summary, options);
  if (status === 501) return notOffered(summary, options);
  if (status >= 500) return upstream(summary, options);
  if (status >= 400) return badRequest("bad_request")(summary, options);
  return new SvcFlowError("unexpected_status", `${summary} The gateway answered with an unexpected status.`, options);
}

interface Detail {
  readonly message: string;
  readonly code?: string;
  readonly type?: string;
  readonly param?: string;
}

function readDetail(body: unknown, clean: (text: string) => string): Detail {
  let value = body;
  if (typeof body === "string" || body instanceof Uint8Array) {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body);
    try {
      value = JSON.parse(text);
    } catch {
      return { message: clean(text.replace(/<[^>]*>/g, " ")) };
    }
  }
  const parsed = errorBodySchema.safeParse(value);
  if (!parsed.success) return { message: clean(typeof value === "string" ? value : JSON.stringify(value) ?? "") };
  const { message, code, type, param } = parsed.data.error;
  return {
    message: clean(message),
    ...(code ? { code } : {}),
    ...(type ? { type } : {}),
    ...(param ? { param } : {}),
  };
}

function describe(status: number | undefined, detail: Detail): string {
  const where = status === undefined ? "Error event in the stream" : `HTTP ${status}`;
  const code = detail.code === undefined ? "" : ` ${detail.code}`;
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
