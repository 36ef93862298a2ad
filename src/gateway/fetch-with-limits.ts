import type { Dispatcher } from "undici";
import { PrivateAddressError, SvcFlowError } from "../errors.js";
import { toAbortedError } from "./to-aborted-error.js";

/** Why a download within limits did not give a body. `bytes` is the declared length or what was read so far. */
export type FetchFailure =
  | { readonly reason: "status"; readonly status: number; readonly retryable: boolean }
  | { readonly reason: "content-type"; readonly contentType: string }
  | { readonly reason: "too-large"; readonly bytes: number; readonly declared: boolean }
  | { readonly reason: "timeout"; readonly cause: unknown }
  | { readonly reason: "network"; readonly cause: unknown };

/** The limits of one download and how its failures are worded. */
export interface FetchLimits {
  /** Largest body read; a larger declared length is refused before reading. */
  readonly maxBytes: number;
  /** For the whole download, redirects and body included. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Default "follow". */
  readonly redirect?: "follow" | "error";
  readonly dispatcher?: Dispatcher;
  readonly headers?: Readonly<Record<string, string>>;
  /** Content types kept; a response labelled otherwise is refused before its body is read. No label passes. */
  readonly contentTypes?: RegExp;
  /** The error for a failure: each caller says what the link was for and what to do. */
  readonly failure: (failure: FetchFailure) => SvcFlowError;
}

/** A downloaded body and the content type it was labelled with. */
export interface FetchedBody {
  readonly bytes: Buffer;
  readonly contentType?: string;
}

/**
 * GETs `url` within a size cap and one deadline for the whole download. The caller's abort is an
 * AbortedError, a refused private address (from a public-only dispatcher) is the PrivateAddressError
 * itself, and every other failure is the caller's `failure` error.
 */
export async function fetchWithLimits(url: string | URL, limits: FetchLimits): Promise<FetchedBody> {
  // A link that never answers, or trickles its body, would hold the caller for good.
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal === undefined ? timeout : AbortSignal.any([limits.signal, timeout]);
  try {
    // Loaded here, so importing a module that may download does not load undici (see OwnedAgent).
    const { fetch } = await import("undici");
    const response = await fetch(url, {
      signal,
      redirect: limits.redirect ?? "follow",
      ...(limits.dispatcher === undefined ? {} : { dispatcher: limits.dispatcher }),
      ...(limits.headers === undefined ? {} : { headers: limits.headers }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      const status = response.status;
      throw limits.failure({ reason: "status", status, retryable: status >= 500 || status === 429 });
    }
    const contentType = response.headers.get("content-type") ?? undefined;
    if (contentType !== undefined && contentType !== "" && limits.contentTypes?.test(contentType) === false) {
      await response.body?.cancel();
      throw limits.failure({ reason: "content-type", contentType });
    }
    const declared = Number(response.headers.get("content-length") ?? 0);
    if (declared > limits.maxBytes) {
      await response.body?.cancel();
      throw limits.failure({ reason: "too-large", bytes: declared, declared: true });
    }
    const pieces: Uint8Array[] = [];
    let size = 0;
    for await (const piece of response.body ?? []) {
      size += piece.byteLength;
      if (size > limits.maxBytes) throw limits.failure({ reason: "too-large", bytes: size, declared: false });
      pieces.push(piece);
    }
    return { bytes: Buffer.concat(pieces), ...(contentType === undefined ? {} : { contentType }) };
  } catch (error) {
    throw classify(error, limits, timeout);
  }
}

function classify(error: unknown, limits: FetchLimits, timeout: AbortSignal): SvcFlowError {
  if (limits.signal?.aborted) return toAbortedError(limits.signal.reason);
  // Our own failures (thrown above through `failure`) pass as they are.
  if (error instanceof SvcFlowError) return error;
  if (timeout.aborted) return limits.failure({ reason: "timeout", cause: error });
  // undici wraps connection failures ("fetch failed"); the refusal of a private address is inside.
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof PrivateAddressError) return cause;
  return limits.failure({ reason: "network", cause: error });
}
