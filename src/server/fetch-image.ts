import { fetch, type Dispatcher } from "undici";
import { publicOnlyAgent } from "../net/public-only-agent.js";

// Simulated models may look at linked images; the gateway fetches them the way an upstream would,
// bounded in time and size so one bad link cannot hold a request.
const TIMEOUT_MS = 5000;

/** Limits of one linked-image fetch. */
export interface FetchImageOptions {
  /** Largest image read; a longer body is dropped. */
  readonly maxBytes: number;
  /** Fetch from loopback, private, link-local and other non-public addresses too. */
  readonly allowPrivateAddresses: boolean;
  /** undici dispatcher every hop goes through, for tests. Default: the public-only Agent, or undici's
   * global one when private addresses are allowed. */
  readonly dispatcher?: Dispatcher;
}

/** Fetches an http(s) image; undefined on any failure, when larger than `maxBytes`, or when refused as private. */
export async function fetchImage(url: string, options: FetchImageOptions): Promise<Buffer | undefined> {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    // The public-only Agent judges every connection it opens, the redirect hops' included, so a
    // public page that redirects to 169.254.169.254 is refused before anything is sent there.
    const dispatcher = options.dispatcher ?? (options.allowPrivateAddresses ? undefined : publicOnlyAgent());
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "follow", dispatcher });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return undefined;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > options.maxBytes) return undefined;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } catch {
    return undefined;
  }
}
