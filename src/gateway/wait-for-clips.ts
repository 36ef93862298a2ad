import { SvcFlowError, TimeoutError, UpstreamError, type GatewayIds } from "../errors.js";
import { abortableSleep } from "./abortable-sleep.js";
import { positiveNumber } from "./positive-number.js";
import { toAbortedError } from "./to-aborted-error.js";
import type { Clip } from "./wire.js";

/** How long and how often to poll. */
export interface WaitForClipsOptions {
  /** Give up after this long. Default 300_000. */
  timeoutMs?: number;
  /** The first wait between polls; it grows by half each poll. Default 2_000. */
  pollIntervalMs?: number;
  /** The longest wait between polls. Default 15_000. */
  maxPollIntervalMs?: number;
  signal?: AbortSignal;
  /** Called with the clips after every poll, for progress. */
  onPoll?: (clips: readonly Clip[]) => void;
}

/** Defaults of waitForClips. */
export const WAIT_FOR_CLIPS_DEFAULTS = {
  timeoutMs: 300_000,
  pollIntervalMs: 2_000,
  maxPollIntervalMs: 15_000,
} as const;

const FAILED_STATUSES = new Set(["error", "failed", "failure"]);

/** Polls `get` until every clip id has an `audio_url`; TimeoutError after `timeoutMs`. */
export async function waitForClips(
  get: (signal?: AbortSignal) => Promise<{ clips: Clip[]; ids: GatewayIds }>,
  clipIds: readonly string[],
  options: WaitForClipsOptions = {},
): Promise<{ clips: Clip[]; ids: GatewayIds }> {
  const timeoutMs = positiveNumber("timeoutMs", options.timeoutMs ?? WAIT_FOR_CLIPS_DEFAULTS.timeoutMs);
  let intervalMs = positiveNumber("pollIntervalMs", options.pollIntervalMs ?? WAIT_FOR_CLIPS_DEFAULTS.pollIntervalMs);
  const maxIntervalMs = positiveNumber(
    "maxPollIntervalMs",
    options.maxPollIntervalMs ?? WAIT_FOR_CLIPS_DEFAULTS.maxPollIntervalMs,
  );
  const { signal } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: SvcFlowError | undefined;
  let pending: readonly string[] = clipIds;

  for (;;) {
    if (signal?.aborted === true) throw toAbortedError(signal.reason);
    try {
      const { clips, ids } = await get(signal);
      lastError = undefined;
      options.onPoll?.(clips);
      const byId = new Map(clips.map((clip) => [clip.id, clip]));
      const failed = clips.find((clip) => FAILED_STATUSES.has(String(clip.status ?? "").toLowerCase()));
      if (failed !== undefined) {
        throw new UpstreamError(
          `Music clip ${failed.id} failed upstream (status "${failed.status}"); the gateway refunds it. Generate again.`,
          { ...ids, code: "music_failed", retryable: false },
        );
      }
      pending = clipIds.filter((id) => !hasAudio(byId.get(id)));
      if (pending.length === 0) return { clips: clipIds.map((id) => byId.get(id) as Clip), ids };
    } catch (error) {
      // A transient failure of the free `get` is polled through; anything else ends the wait.
      if (!(error instanceof SvcFlowError) || !error.retryable) throw error;
      lastError = error;
    }

    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) {
      const why = lastError === undefined ? "" : ` The last poll failed: ${lastError.message}`;
      throw new TimeoutError(
        `Clips ${pending.join(", ")} had no audio after ${timeoutMs} ms. They may still finish: wait for the same ids again.${why}`,
        lastError === undefined ? {} : { cause: lastError },
      );
    }
    await abortableSleep(Math.min(intervalMs, remainingMs), signal);
    intervalMs = Math.min(maxIntervalMs, intervalMs * 1.5);
  }
}

function hasAudio(clip: Clip | undefined): boolean {
  return typeof clip?.audio_url === "string" && clip.audio_url !== "";
}

/**
 * The clips of a job an earlier execution started and paid for (a resumed run's): `wait` polls it as
 * it would a new job, calling `onPoll` after each poll, and this resolves undefined instead when the
 * job had already failed at the first look, so the caller submits anew (the gateway refunded it and
 * forgot its call). A job that fails later fails as `wait` does.
 */
export async function clipsOfEarlierJob<T>(wait: (onPoll: () => void) => Promise<T>): Promise<T | undefined> {
  let polls = 0;
  try {
    return await wait(() => void polls++);
  } catch (error) {
    if (error instanceof SvcFlowError && error.code === "music_failed" && polls === 1) return undefined;
    throw error;
  }
}
