import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ContextWindowError,
  KeyDeactivatedError,
  NotOfferedError,
  QuotaExceededError,
  RateLimitError,
  TimeoutError,
  UnknownModelError,
  UpstreamError,
} from "../src/errors.js";
import { errorFromResponse } from "../src/gateway/error-from-response.js";
import { readRetryAfterS } from "../src/gateway/gateway-ids.js";

const body = (code: string | undefined, message = "something happened", type?: string) =>
  JSON.stringify({
    error: { message, ...(type === undefined ? {} : { type }), ...(code === undefined ? {} : { code }) },
  });

describe("errorFromResponse", () => {
  it.each([
    [401, body("invalid_api_key"), AuthenticationError, "invalid_api_key", false],
    [401, body("key_deactivated"), KeyDeactivatedError, "key_deactivated", false],
    [429, body("rate_limit_exceeded"), RateLimitError, "rate_limited", true],
    [429, body("concurrency_limit_exceeded"), RateLimitError, "rate_limited", true],
    [429, body("insufficient_quota"), QuotaExceededError, "insufficient_quota", false],
    [400, body("invalid_parameter"), BadRequestError, "invalid_parameter", false],
    [400, body("context_length_exceeded"), ContextWindowError, "context_window_exceeded", false],
    [404, body("model_not_found"), UnknownModelError, "model_not_found", false],
    [404, body("not_offered"), NotOfferedError, "not_offered", false],
    [413, body("request_too_large"), BadRequestError, "request_too_large", false],
    [503, body("upstream_error"), UpstreamError, "upstream_error", true],
  ])("maps HTTP %i %s to its class", (status, text, errorClass, code, retryable) => {
    const error = errorFromResponse({ status, body: text });
    expect(error).toBeInstanceOf(errorClass);
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
  });

  it.each([
    ["an unknown 401", 401, body("E1001", "Invalid token"), AuthenticationError],
    [
      "a 401 that says the balance is spent",
      401,
      body("E1002", "该令牌额度已用尽 (balance exhausted)"),
      KeyDeactivatedError,
    ],
    ["a 401 that says the key is disabled", 401, body(undefined, "token has been disabled"), KeyDeactivatedError],
    ["an unknown 429", 429, body("E429", "Too many requests"), RateLimitError],
    ["a 429 about quota", 429, body(undefined, "You exceeded your current quota"), QuotaExceededError],
    [
      "a 429 that says rate limit and links to a quota form",
      429,
      body("429", "Exceeded token rate limit. Please go here: https://aka.ms/oai/quotaincrease"),
      RateLimitError,
    ],
    [
      "a 429 in quota words that says when to retry",
      429,
      body(undefined, "Quota exceeded. Please retry in 41.1s."),
      RateLimitError,
    ],
    ["a 429 whose type says insufficient_quota", 429, body(undefined, "no", "insufficient_quota"), QuotaExceededError],
    ["a 402", 402, body(undefined, "pay"), QuotaExceededError],
    ["an unknown 400", 400, body("E400", "bad"), BadRequestError],
    ["a 404 naming a model", 404, body(undefined, "The model `x` does not exist"), UnknownModelError],
    ["a 408", 408, "", TimeoutError],
    ["a 502 with an HTML body", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>", UpstreamError],
    ["a 500 with an empty body", 500, "", UpstreamError],
    ["a 501", 501, "", NotOfferedError],
  ])("falls back by status for %s", (_name, status, text, errorClass) => {
    expect(errorFromResponse({ status, body: text })).toBeInstanceOf(errorClass);
  });

  it("treats an error event without a status as an upstream failure", () => {
    const error = errorFromResponse({ body: { error: { message: "model crashed", code: "E_WEIRD" } } });
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("model crashed");
  });

  it("keeps the gateway's ids from the headers", () => {
    const error = errorFromResponse({
      status: 401,
      headers: { "x-request-id": "req-1", "x-svc-audit-id": "audit-1", "x-svc-backend-id": "node-7" },
      body: body("invalid_api_key"),
    });
    expect(error).toMatchObject({ requestId: "req-1", auditId: "audit-1", backendId: "node-7" });
  });

  it("reads ids from a fetch Headers object too", () => {
    const headers = new Headers({ "X-Request-Id": "req-2" });
    expect(errorFromResponse({ status: 500, headers, body: "" }).requestId).toBe("req-2");
  });

  it("includes the gateway's message and names the fix", () => {
    const error = errorFromResponse({
      status: 400,
      body: body("invalid_parameter", "temperature is not supported by alpha-opus-4-8"),
    });
    expect(error.message).toContain("temperature is not supported by alpha-opus-4-8");
    expect(error.message).toContain("Fix the request");
  });

  it("never puts the API key in the message, even when the gateway echoes it", () => {
    const apiKey = "sk-live.secret+part/9";
    const error = errorFromResponse({
      status: 401,
      body: body("invalid_api_key", `Incorrect API key provided: ${apiKey}`),
      apiKey,
    });
    expect(error.message).not.toContain(apiKey);
    expect(error.message).not.toContain("secret");
    const patterned = errorFromResponse({ status: 401, body: body(undefined, "bad key sk-abcdef123456") });
    expect(patterned.message).not.toContain("sk-abcdef123456");
  });

  it("sets retryAfterS from Retry-After", () => {
    const error = errorFromResponse({
      status: 429,
      headers: { "retry-after": "2" },
      body: body("rate_limit_exceeded"),
    });
    expect(error.retryAfterS).toBe(2);
    expect(error.message).toContain("at least 2 s");
  });

  it("prefers retry-after-ms over Retry-After", () => {
    expect(readRetryAfterS({ "retry-after-ms": "50", "retry-after": "9" })).toBe(0.05);
  });

  it("reads Retry-After given as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(readRetryAfterS({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5);
  });

  it("ignores a Retry-After it cannot read", () => {
    expect(readRetryAfterS({ "retry-after": "soon" })).toBeUndefined();
  });
});
