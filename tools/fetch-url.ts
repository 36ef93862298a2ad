import { STATUS_CODES } from "node:http";
import { tool } from "@langchain/core/tools";
import type { Dispatcher } from "undici";
import { z } from "zod";
import {
  AbortedError,
  PrivateAddressError,
  ToolInputError,
  TimeoutError,
  UpstreamError,
  redactSecrets,
} from "../src/errors.js";
import { positiveInteger } from "./support/check-option.js";
import { decodeBody, isTextType, mediaType } from "./support/decode-body.js";
import { errorCode } from "./support/error-code.js";
import { formatBytes } from "./support/format-bytes.js";
import { checkPublicHost, privateNetworkRefusal } from "./support/private-network-refusal.js";

/** Options of the fetch_url tool. */
export interface FetchUrlToolOptions {
  /** Most body bytes read; reading stops there and the text says it was cut. Default 256 KiB. */
  maxBytes?: number;
  /** Time for the whole fetch, redirects and body included. Default 15000 ms. */
  timeoutMs?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /** Fetch loopback, private, link-local and other non-public addresses (127.0.0.1, 10.x, 169.254.169.254, ::1, ...).
   * Default false: they are refused, literal IPs before any request and host names on the address they resolve to. */
  allowPrivateNetwork?: boolean;
  /** undici dispatcher, to route requests through a proxy or a test agent. Literal IPs are still checked, but host
   * names then resolve inside it (at the proxy), so refusing private ones is its job. Default: a shared Agent that
   * checks every resolved address (with allowPrivateNetwork, undici's global one). */
  dispatcher?: Dispatcher;
  /** User-Agent header sent. Default "svc-flow-fetch-url". */
  userAgent?: string;
}

/** Input of the fetch_url tool. */
export const fetchUrlSchema = z.object({
  url: z
    .string()
    .min(1)
    .max(8192)
    .describe('An absolute http:// or https:// URL, e.g. "https://example.com/data.json".'),
});

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NETWORK_REASONS: Record<string, string> = {
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved right now",
  ECONNREFUSED: "the server refused the connection",
  ECONNRESET: "the server closed the connection",
  UND_ERR_SOCKET: "the connection broke",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
};

function networkReason(error: unknown): string {
  const known = NETWORK_REASONS[errorCode(error) ?? ""];
  return known ?? (error instanceof Error ? error.message : String(error));
}

/** Parses a URL and refuses every scheme but http and https. */
export function checkFetchUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new ToolInputError(
      `"${redactSecrets(text)}" is not a valid URL. Give an absolute URL starting with http:// or https://.`,
      { code: "invalid_url" },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const hint = url.protocol === "file:" ? " To read a local file, use read_file with a path in the workspace." : "";
    throw new ToolInputError(
      `The URL scheme "${url.protocol}" is refused: fetch_url fetches http:// and https:// URLs only.${hint}`,
      { code: "url_refused" },
    );
  }
  return url;
}

async function readLimited(body: Dispatcher.ResponseData["body"], maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const iterator = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const chunk = next.value;
      // A chunk arriving once the limit is reached (even exactly) proves the body was longer.
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    // Ending the iterator destroys the stream without an unhandled "Request aborted" error event.
    await iterator.return?.();
  }
  return { bytes: Buffer.concat(chunks), truncated };
}

function header(headers: Dispatcher.ResponseData["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Creates the `fetch_url` tool: GETs an http(s) URL and returns status, content type and text, within limits. */
export function createFetchUrlTool(options: FetchUrlToolOptions = {}) {
  const maxBytes = positiveInteger("maxBytes", options.maxBytes, 256 * 1024);
  const timeoutMs = positiveInteger("timeoutMs", options.timeoutMs, 15_000);
  const maxRedirects = options.maxRedirects === 0 ? 0 : positiveInteger("maxRedirects", options.maxRedirects, 5);
  const userAgent = options.userAgent ?? "svc-flow-fetch-url";
  const allowPrivateNetwork = options.allowPrivateNetwork === true;

  // Run on the first URL and on every redirect target, before anything is sent to it.
  function checkUrl(text: string, base?: URL): URL {
    const url = checkFetchUrl(text, base);
    if (!allowPrivateNetwork) checkPublicHost(url);
    return url;
  }

  async function fetchUrl(text: string, signal: AbortSignal): Promise<string> {
    // undici and the public-only Agent load with the first fetch, not with the list of tools.
    const [{ request }, { publicOnlyAgent }] = await Promise.all([
      import("undici"),
      import("../src/net/public-only-agent.js"),
    ]);
    const dispatcher = options.dispatcher ?? (allowPrivateNetwork ? undefined : publicOnlyAgent());
    let url = checkUrl(text);
    for (let redirects = 0; ; redirects++) {
      const response = await request(url, {
        method: "GET",
        signal,
        dispatcher,
        headers: { "user-agent": userAgent, accept: "text/*, application/json, application/xml;q=0.9, */*;q=0.5" },
      });
      const location = header(response.headers, "location");
      if (REDIRECTS.has(response.statusCode) && location !== undefined) {
        await response.body.dump();
        if (redirects >= maxRedirects) {
          throw new ToolInputError(`${redactSecrets(text)} redirected more than ${maxRedirects} times; giving up.`, {
            code: "too_many_redirects",
          });
        }
        url = checkUrl(location, url);
        continue;
      }
      const contentType = header(response.headers, "content-type");
      const length = Number(header(response.headers, "content-length") ?? Number.NaN);
      const of = Number.isSafeInteger(length) && length >= 0 ? ` of ${formatBytes(length)}` : "";
      const lines = [
        `URL: ${redactSecrets(url.href)}`,
        `Status: ${response.statusCode} ${STATUS_CODES[response.statusCode] ?? ""}`.trimEnd(),
        `Content-Type: ${contentType ?? "(none)"}`,
        "",
      ];
      const type = mediaType(contentType) || "no content type";
      const binary = `[The body is binary (${type}${of}); fetch_url returns text only.]`;
      if (isTextType(contentType) === false) {
        // dump() discards a small body so the connection is reused, and drops a large one after 128 KiB.
        await response.body.dump();
        return [...lines, binary].join("\n");
      }
      const { bytes, truncated } = await readLimited(response.body, maxBytes);
      if (isTextType(contentType) === undefined && bytes.subarray(0, 8192).includes(0)) {
        return [...lines, binary].join("\n");
      }
      lines.push(decodeBody(bytes, contentType));
      if (truncated) lines.push(`[Truncated: only the first ${formatBytes(maxBytes)}${of} were read.]`);
      return lines.join("\n");
    }
  }

  return tool(
    async ({ url }, config) => {
      const timeout = AbortSignal.timeout(timeoutMs);
      const caller = config?.signal;
      const signal = caller === undefined ? timeout : AbortSignal.any([timeout, caller]);
      try {
        return await fetchUrl(url, signal);
      } catch (error) {
        if (error instanceof ToolInputError) throw error;
        if (error instanceof PrivateAddressError) throw privateNetworkRefusal(error.reason);
        if (caller?.aborted) throw new AbortedError("fetch_url was cancelled.", { cause: error });
        const shown = redactSecrets(url);
        if (timeout.aborted) {
          throw new TimeoutError(
            `Fetching ${shown} took longer than ${timeoutMs} ms and was stopped. Try again later or another URL.`,
            { cause: error },
          );
        }
        throw new UpstreamError(
          `Could not fetch ${shown}: ${networkReason(error)}. Check the URL, or try again later.`,
          {
            code: "fetch_failed",
            cause: error,
          },
        );
      }
    },
    {
      name: "fetch_url",
      description:
        "Fetches a web page or file with HTTP GET and returns the final URL, status, content type and the body " +
        `as text (HTML is returned raw). http:// and https:// only. Bodies are cut at ${formatBytes(maxBytes)} ` +
        `(with a note); the whole fetch must finish within ${timeoutMs / 1000} s. Binary bodies are not shown. ` +
        "A non-2xx status is returned, not raised." +
        (allowPrivateNetwork
          ? ""
          : " Private network addresses (localhost, 10.x, 192.168.x, 169.254.x, ...) are refused."),
      schema: fetchUrlSchema,
    },
  );
}
