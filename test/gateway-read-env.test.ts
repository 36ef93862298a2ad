import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors.js";
import { readEnv } from "../src/gateway/read-env.js";

describe("readEnv", () => {
  it("reads the key and base URL from the environment", () => {
    const connection = readEnv({}, { SVC_API_KEY: "sk-env", SVC_BASE_URL: "http://127.0.0.1:8787/v1" });
    expect(connection).toEqual({
      apiKey: "sk-env",
      baseURL: "http://127.0.0.1:8787/v1",
      rootURL: "http://127.0.0.1:8787",
    });
  });

  it("lets options win over the environment", () => {
    const connection = readEnv(
      { apiKey: "sk-option", baseURL: "https://gw.example/api/v1/" },
      { SVC_API_KEY: "sk-env", SVC_BASE_URL: "http://x/v1" },
    );
    expect(connection).toEqual({
      apiKey: "sk-option",
      baseURL: "https://gw.example/api/v1",
      rootURL: "https://gw.example/api",
    });
  });

  it("derives the base URL from a root URL", () => {
    expect(readEnv({ apiKey: "sk-a", rootURL: "http://h:1/" }, {}).baseURL).toBe("http://h:1/v1");
  });

  it("says how to fix a missing key", () => {
    expect(() => readEnv({}, { SVC_BASE_URL: "http://h/v1" })).toThrow(
      "SVC_API_KEY is not set. Pass apiKey or set SVC_API_KEY.",
    );
  });

  it("says how to fix a missing base URL", () => {
    expect(() => readEnv({ apiKey: "sk-a" }, {})).toThrow(/SVC_BASE_URL is not set\. Pass baseURL or set SVC_BASE_URL/);
  });

  it("rejects a base URL without /v1 and proposes the fixed one", () => {
    expect(() => readEnv({ apiKey: "sk-a", baseURL: "http://h:1" }, {})).toThrow('Use "http://h:1/v1"');
  });

  it.each([
    ["http://h:1/v1/chat/completions", 'not name an endpoint. Use "http://h:1/v1".'],
    ["https://gw.example/api/v1/models", 'not name an endpoint. Use "https://gw.example/api/v1".'],
    ["gateway.example.com/v1", 'has no scheme. Use "https://gateway.example.com/v1"'],
    ["localhost:8787/v1", 'has no scheme. Use "http://localhost:8787/v1"'],
    ["127.0.0.1:8787/v1", 'has no scheme. Use "http://127.0.0.1:8787/v1"'],
  ])("proposes the root a user meant by the base URL %s", (baseURL, says) => {
    expect(() => readEnv({ apiKey: "sk-a", baseURL }, {})).toThrow(says);
  });

  it("rejects a key without the sk- prefix without showing the key", () => {
    let caught: unknown;
    try {
      readEnv({ apiKey: "pk-topsecret", baseURL: "http://h/v1" }, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).code).toBe("invalid_api_key_format");
    expect((caught as Error).message).not.toContain("topsecret");
  });

  it("rejects a key with a trailing newline", () => {
    expect(() => readEnv({ apiKey: "sk-abc\n", baseURL: "http://h/v1" }, {})).toThrow(/whitespace/);
  });

  it("rejects a base URL that is not http", () => {
    expect(() => readEnv({ apiKey: "sk-a", baseURL: "ftp://h/v1" }, {})).toThrow(/http or https/);
  });
});
