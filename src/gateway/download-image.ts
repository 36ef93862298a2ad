import type { Dispatcher } from "undici";
import { PrivateAddressError, type SvcFlowError, TimeoutError, UpstreamError } from "../errors.js";
import { probeImage } from "../media/probe.js";
import { toAbortedError } from "./to-aborted-error.js";

/** Limits of one image download. */
export interface ImageDownloadOptions {
  readonly signal?: AbortSignal;
  /** Largest image read. Default 20 MiB (what one request may carry). */
  readonly maxBytes?: number;
  /** For the whole download, redirects included. Default 30_000. */
  readonly timeoutMs?: number;
}

/** Where a link may be fetched from: the gateway's own origin through the gateway's dispatcher
 * (it may be a local gateway on loopback), every other origin only at public addresses. */
export interface ImageLinkRoute {
  readonly gatewayOrigin: string;
  readonly gatewayDispatcher?: Dispatcher;
}

/** An image downloaded from a link, with its type read from its bytes. */
export interface DownloadedImage {
  readonly bytes: Buffer;
  readonly mimeType: string;
}

/** Defaults of ImageDownloadOptions. */
export const IMAGE_DOWNLOAD_DEFAULTS = { maxBytes: 20 * 1024 * 1024, timeoutMs: 30_000 } as const;

// Types a CDN may label an image with; anything else (an HTML error page, JSON) is not an image.
const IMAGE_TYPES = /^(?:image\/|application\/octet-stream|binary\/octet-stream)/i;

/**
 * Downloads an image a reply gave as a link: http(s) only, no key sent, within the size and time
 * limits, and kept only when both its content type and its bytes say it is a PNG, JPEG, GIF or WebP
 * image. A link elsewhere than the gateway goes only to public addresses, on every redirect hop.
 */
export async function downloadImage(
  link: string,
  route: ImageLinkRoute,
  options: ImageDownloadOptions = {},
): Promise<DownloadedImage> {
  const maxBytes = options.maxBytes ?? IMAGE_DOWNLOAD_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? IMAGE_DOWNLOAD_DEFAULTS.timeoutMs;
  const url = parseLink(link);
  const own = url.origin === route.gatewayOrigin;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  const failed = (message: string, retryable: boolean, status?: number) =>
    new UpstreamError(`Downloading the image ${url.href} failed: ${message}`, {
      code: "image_download_failed",
      retryable,
      ...(status === undefined ? {} : { status }),
    });
  try {
    // Loaded here, so importing the client does not load undici (see OwnedAgent).
    const [{ fetch }, { publicOnlyAgent }] = await Promise.all([
      import("undici"),
      import("../net/public-only-agent.js"),
    ]);
    const response = await fetch(url, {
      signal,
      // The gateway's own links are served by it; a redirect off its origin would skip the address check.
      redirect: own ? "error" : "follow",
      ...(own ? (route.gatewayDispatcher === undefined ? {} : { dispatcher: route.gatewayDispatcher }) : {}),
      ...(own ? {} : { dispatcher: publicOnlyAgent() }),
      headers: { accept: "image/*" },
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw failed(`HTTP ${response.status}.`, response.status >= 500 || response.status === 429, response.status);
    }
    const type = response.headers.get("content-type") ?? "";
    if (type !== "" && !IMAGE_TYPES.test(type)) {
      await response.body?.cancel();
      throw failed(`the link answered with ${type.split(";")[0]}, not an image.`, false);
    }
    const declared = Number(response.headers.get("content-length") ?? 0);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw failed(`it is ${declared} bytes, over the limit of ${maxBytes}.`, false);
    }
    const pieces: Uint8Array[] = [];
    let size = 0;
    for await (const piece of response.body ?? []) {
      size += piece.byteLength;
      if (size > maxBytes) throw failed(`it is over the limit of ${maxBytes} bytes.`, false);
      pieces.push(piece);
    }
    const bytes = Buffer.concat(pieces);
    const facts = probeImage(bytes);
    if (facts === undefined) throw failed("its bytes are not a PNG, JPEG, GIF or WebP image.", false);
    return { bytes, mimeType: `image/${facts.format}` };
  } catch (error) {
    throw classify(error, url, options.signal, timeout, timeoutMs);
  }
}

function parseLink(link: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(link);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new UpstreamError(`The reply's image link is not an http(s) URL: ${link.slice(0, 120)}`, {
      code: "image_download_failed",
      retryable: false,
    });
  return url;
}

function classify(
  error: unknown,
  url: URL,
  caller: AbortSignal | undefined,
  timeout: AbortSignal,
  timeoutMs: number,
): SvcFlowError {
  if (error instanceof UpstreamError) return error;
  if (caller?.aborted) return toAbortedError(caller.reason);
  if (timeout.aborted)
    return new TimeoutError(`Downloading the image ${url.href} took longer than ${timeoutMs} ms.`, { cause: error });
  // undici wraps connection failures ("fetch failed"); the refusal of a private address is inside.
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof PrivateAddressError) return cause;
  return new UpstreamError(`Downloading the image ${url.href} failed: ${(error as Error).message}.`, {
    code: "image_download_failed",
    retryable: true,
    cause: error,
  });
}
