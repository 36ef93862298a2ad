import { ConfigError, registerSecret } from "../errors.js";

/** Where and how to reach the gateway, as the caller passed it. */
export interface ConnectionOptions {
  /** The API key (`sk-...`). Default: `SVC_API_KEY`. */
  readonly apiKey?: string;
  /** The versioned root, ending in `/v1`. Default: `SVC_BASE_URL`, or derived from `rootURL`. */
  readonly baseURL?: string;
  /** The root without `/v1` (the music interface); derived from `baseURL` when absent. */
  readonly rootURL?: string;
}

/** A validated connection: key, versioned root and unversioned root. */
export interface Connection {
  readonly apiKey: string;
  /** Ends in `/v1`, no trailing slash. */
  readonly baseURL: string;
  /** `baseURL` without `/v1`, no trailing slash. */
  readonly rootURL: string;
}

/** Resolves key and URLs from options, then the environment; rejects bad values with the fix. */
export function readEnv(options: ConnectionOptions = {}, env: NodeJS.ProcessEnv = process.env): Connection {
  const apiKey = options.apiKey ?? env.SVC_API_KEY;
  registerSecret(apiKey);
  if (apiKey === undefined || apiKey === "") {
    throw new ConfigError("SVC_API_KEY is not set. Pass apiKey or set SVC_API_KEY.", { code: "missing_api_key" });
  }
  // The key itself never goes into a message: only what is wrong with it.
  if (/\s/.test(apiKey)) {
    throw new ConfigError("The API key contains whitespace (often a trailing newline from a file). Remove it.", {
      code: "invalid_api_key_format",
    });
  }
  if (!apiKey.startsWith("sk-") || apiKey.length <= 3) {
    throw new ConfigError('The API key does not start with "sk-". Pass the key the gateway issued (sk-...).', {
      code: "invalid_api_key_format",
    });
  }

  const rootURL = options.rootURL === undefined ? undefined : trimSlashes(options.rootURL);
  const baseURL = options.baseURL ?? env.SVC_BASE_URL ?? (rootURL === undefined ? undefined : `${rootURL}/v1`);
  if (baseURL === undefined || baseURL === "") {
    throw new ConfigError(
      "SVC_BASE_URL is not set. Pass baseURL or set SVC_BASE_URL to the gateway's versioned root (…/v1); `svc-flow gateway` serves one locally.",
      { code: "missing_base_url" },
    );
  }
  const normalized = trimSlashes(baseURL);
  // `gateway.example.com/v1` is no URL, and `localhost:8787/v1` parses as one of scheme "localhost:".
  if (!normalized.includes("://")) {
    const scheme = /^(localhost|127\.|\[::1\])/.test(normalized) ? "http" : "https";
    throw new ConfigError(
      `The base URL "${normalized}" has no scheme. Use "${scheme}://${normalized}" if that is the gateway's address.`,
      { code: "invalid_base_url" },
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(normalized);
  } catch (error) {
    throw new ConfigError(`The base URL "${normalized}" is not a URL. Use e.g. http://127.0.0.1:8787/v1.`, {
      code: "invalid_base_url",
      cause: error,
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`The base URL "${normalized}" must use http or https.`, { code: "invalid_base_url" });
  }
  if (!normalized.endsWith("/v1")) {
    // An endpoint's URL copied from the gateway's docs (…/v1/chat/completions): the root is the part up to /v1.
    const root = /^(.*?\/v1)\/./.exec(normalized)?.[1];
    throw new ConfigError(
      root === undefined
        ? `The base URL "${normalized}" must end in /v1 (the versioned root). Use "${normalized}/v1" if that is the gateway's root.`
        : `The base URL "${normalized}" must end in /v1 (the versioned root), not name an endpoint. Use "${root}".`,
      { code: "invalid_base_url" },
    );
  }
  return { apiKey, baseURL: normalized, rootURL: rootURL ?? normalized.slice(0, -"/v1".length) };
}

function trimSlashes(url: string): string {
  return url.trim().replace(/\/+$/, "");
}
