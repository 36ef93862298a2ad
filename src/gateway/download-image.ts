import type { Dispatcher } from "undici";
import { type SvcFlowError, TimeoutError, UpstreamError } from "../errors.js";
import { probeImage } from "../media/probe.js";
import { fetchWithLimits } from "./fetch-with-limits.js";

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
  const failed = (message: string, retryable: boolean, extra: { status?: number; cause?: unknown } = {}) =>
    new UpstreamError(`Downloading the image ${url.href} failed: ${message}`, {
      code: "image_download_failed",
      retryable,
      ...extra,
    });
  // Loaded here, so importing the client does not load undici (see OwnedAgent).
  const { publicOnlyAgent } = await import("../net/public-only-agent.js");
  const dispatcher = own ? route.gatewayDispatcher : publicOnlyAgent();
  const { bytes } = await fetchWithLimits(url, {
    maxBytes,
    timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    // The gateway's own links are served by it; a redirect off its origin would skip the address check.
    redirect: own ? "error" : "follow",
    ...(dispatcher === undefined ? {} : { dispatcher }),
    headers: { accept: "image/*" },
    contentTypes: IMAGE_TYPES,
    failure: (failure): SvcFlowError => {
      switch (failure.reason) {
        case "status":
          return failed(`HTTP ${failure.status}.`, failure.retryable, { status: failure.status });
        case "content-type":
          return failed(`the link answered with ${failure.contentType.split(";")[0]}, not an image.`, false);
        case "too-large":
          return failed(
            failure.declared
              ? `it is ${failure.bytes} bytes, over the limit of ${maxBytes}.`
              : `it is over the limit of ${maxBytes} bytes.`,
            false,
          );
        case "timeout":
          return new TimeoutError(`Downloading the image ${url.href} took longer than ${timeoutMs} ms.`, {
            cause: failure.cause,
          });
        case "network":
          return failed(`${(failure.cause as Error).message}.`, true, { cause: failure.cause });
      }
    },
  });
  const facts = probeImage(bytes);
  if (facts === undefined) throw failed("its bytes are not a PNG, JPEG, GIF or WebP image.", false);
  return { bytes, mimeType: `image/${facts.format}` };
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
