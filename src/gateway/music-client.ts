import type { Dispatcher } from "undici";
import type { MusicOperation } from "../catalog/prices.js";
import { SvcFlowError, type GatewayIds } from "../errors.js";
import { callHeaders } from "./call-headers.js";
import { downloadClip, type DownloadedAudio, type SavedAudio } from "./download-clip.js";
import { GATEWAY_CLIENT_DEFAULTS } from "./gateway-client.js";
import { HttpTransport, invalidResponse, type TransportRequest } from "./http-transport.js";
import { OwnedAgent } from "./owned-agent.js";
import { clipsFromBody, lyricsFromBody, type Lyrics } from "./music-bodies.js";
import { wasReplayed } from "./gateway-ids.js";
import { positiveNumber } from "./positive-number.js";
import { readEnv } from "./read-env.js";
import { toAbortedError } from "./to-aborted-error.js";
import type { UsageRecorder } from "./usage-recorder.js";
import { waitForClips, type WaitForClipsOptions } from "./wait-for-clips.js";
import { MUSIC_PATHS, quotaReportSchema, type Clip, type QuotaReport } from "./wire.js";

/** Options of MusicClient; every field is optional. */
export interface MusicClientOptions {
  /** The API key (`sk-...`). Default: `SVC_API_KEY`. */
  apiKey?: string;
  /** The root without `/v1`. Default: derived from `baseURL`. */
  rootURL?: string;
  /** The versioned root; its `/v1` is dropped for music. Default: `SVC_BASE_URL`. */
  baseURL?: string;
  /** An undici dispatcher. Default: a keep-alive Agent owned (and closed) by the client. */
  dispatcher?: Dispatcher;
  /** Receives every priced call (reserve before, settle after). Default: none. */
  recorder?: UsageRecorder;
  /** Connect timeout of the client's own Agent. Default 10_000. */
  connectTimeoutMs?: number;
  /** Until response headers. Default 120_000. */
  firstByteTimeoutMs?: number;
  /** Between body chunks. Default 60_000. */
  chunkTimeoutMs?: number;
}

/** Per-call options. */
export interface MusicCallOptions {
  signal?: AbortSignal;
}

/** Options of a billed music call. */
export interface BilledMusicCallOptions extends MusicCallOptions {
  /** Sent as `Idempotency-Key`: repeating the call with the same key and input replays the first
   * answer (the same clip ids) instead of billing again. Derive it from what identifies the call. */
  idempotencyKey?: string;
}

/** The clips a billed call started; `replayed` when the gateway answered from its idempotency store. */
export interface MusicClipsResult {
  clips: Clip[];
  ids: GatewayIds;
  replayed: boolean;
}

/** The asynchronous music interface under `{root_url}/musicapi/api/`; one attempt per call. */
export class MusicClient {
  /** The root without `/v1`. */
  readonly rootURL: string;
  readonly #transport: HttpTransport;
  readonly #ownedAgent: OwnedAgent | undefined;
  readonly #recorder: UsageRecorder | undefined;

  constructor(options: MusicClientOptions = {}) {
    const connection = readEnv({
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.rootURL === undefined ? {} : { rootURL: options.rootURL }),
    });
    const connectTimeoutMs = positiveNumber(
      "connectTimeoutMs",
      options.connectTimeoutMs ?? GATEWAY_CLIENT_DEFAULTS.connectTimeoutMs,
    );
    this.rootURL = connection.rootURL;
    this.#recorder = options.recorder;
    this.#ownedAgent =
      options.dispatcher === undefined ? new OwnedAgent({ connect: { timeout: connectTimeoutMs } }) : undefined;
    this.#transport = new HttpTransport({
      apiKey: connection.apiKey,
      dispatcher: options.dispatcher ?? (this.#ownedAgent as OwnedAgent),
      firstByteTimeoutMs: positiveNumber(
        "firstByteTimeoutMs",
        options.firstByteTimeoutMs ?? GATEWAY_CLIENT_DEFAULTS.firstByteTimeoutMs,
      ),
      chunkTimeoutMs: positiveNumber(
        "chunkTimeoutMs",
        options.chunkTimeoutMs ?? GATEWAY_CLIENT_DEFAULTS.chunkTimeoutMs,
      ),
    });
  }

  /** Submits a generation (billed); resolves with its clips (two per call), not yet finished. */
  async generate(
    input: { prompt: string; instrumental?: boolean } & BilledMusicCallOptions,
  ): Promise<MusicClipsResult> {
    const body = { prompt: input.prompt, make_instrumental: input.instrumental ?? false };
    return this.#clips("generate", MUSIC_PATHS.generate, body, input);
  }

  /** Continues a clip from `continueAtS` (billed). */
  async continuation(
    input: { clipId: string; prompt?: string; continueAtS?: number } & BilledMusicCallOptions,
  ): Promise<MusicClipsResult> {
    const body = {
      audio_id: input.clipId,
      ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
      ...(input.continueAtS === undefined ? {} : { continue_at: input.continueAtS }),
    };
    return this.#clips("continuation", MUSIC_PATHS.continuation, body, input);
  }

  /** Separates a clip into stems (accompaniment and vocals) (billed). */
  async stems(input: { clipId: string } & BilledMusicCallOptions): Promise<MusicClipsResult> {
    return this.#clips("stems", MUSIC_PATHS.stems, { audio_id: input.clipId }, input);
  }

  /** Joins a continued clip with what it continues into one full song (billed). */
  async concatenation(input: { clipId: string } & BilledMusicCallOptions): Promise<MusicClipsResult> {
    return this.#clips("concatenation", MUSIC_PATHS.concatenation, { clip_id: input.clipId }, input);
  }

  /** Writes lyrics for a prompt (billed). */
  async lyrics(
    input: { prompt: string } & BilledMusicCallOptions,
  ): Promise<{ lyrics: Lyrics; ids: GatewayIds; replayed: boolean }> {
    const { value, ids, status, replayed } = await this.#billed(
      "lyrics",
      MUSIC_PATHS.lyrics,
      { prompt: input.prompt },
      input,
    );
    return { lyrics: lyricsFromBody(value, ids, status), ids, replayed };
  }

  /** The clips with these ids as they are now (free). */
  async get(clipIds: readonly string[], options: MusicCallOptions = {}): Promise<{ clips: Clip[]; ids: GatewayIds }> {
    if (clipIds.length === 0) return { clips: [], ids: {} };
    const url = `${this.#url(MUSIC_PATHS.get)}?ids=${encodeURIComponent(clipIds.join(","))}`;
    const { value, ids, status } = await this.#transport.json({ method: "GET", url, ...signalOf(options) });
    return { clips: clipsFromBody(value, ids, status), ids };
  }

  /** Polls `get` with a growing interval until every clip has its `audio_url`. */
  async waitForClips(
    clipIds: readonly string[],
    options: WaitForClipsOptions = {},
  ): Promise<{ clips: Clip[]; ids: GatewayIds }> {
    return waitForClips((signal) => this.get(clipIds, signal === undefined ? {} : { signal }), clipIds, options);
  }

  /** The quota report: upstream `credits_left` and this key's `svc_key_quota` (free). */
  async getLimit(options: MusicCallOptions = {}): Promise<{ report: QuotaReport; ids: GatewayIds }> {
    const { value, ids, status } = await this.#transport.json({
      method: "GET",
      url: this.#url(MUSIC_PATHS.getLimit),
      ...signalOf(options),
    });
    const parsed = quotaReportSchema.safeParse(value);
    if (!parsed.success) throw invalidResponse("The quota report does not match the wire format.", ids, status);
    return { report: parsed.data, ids };
  }

  /** Downloads a finished clip's audio; with `path`, streams it to that file instead of memory. */
  download(clip: Clip, options?: MusicCallOptions & { path?: undefined }): Promise<DownloadedAudio>;
  download(clip: Clip, options: MusicCallOptions & { path: string }): Promise<SavedAudio>;
  async download(
    clip: Clip,
    options: MusicCallOptions & { path?: string } = {},
  ): Promise<DownloadedAudio | SavedAudio> {
    return downloadClip(this.#transport, this.rootURL, clip, options);
  }

  /** Closes the client's own connections; a dispatcher passed in is left open. */
  async close(): Promise<void> {
    await this.#ownedAgent?.close();
  }

  #url(path: string): string {
    return `${this.rootURL}/musicapi/api/${path}`;
  }

  async #clips(
    operation: MusicOperation,
    path: string,
    json: unknown,
    options: BilledMusicCallOptions,
  ): Promise<MusicClipsResult> {
    const { value, ids, status, replayed } = await this.#billed(operation, path, json, options);
    return { clips: clipsFromBody(value, ids, status), ids, replayed };
  }

  // Reserve before sending, settle after; an attempt that fails is settled "failed" (the gateway
  // does not bill failures, and refunds music jobs that fail later). A replay is settled "ok" with
  // `replayed`, and the ledger decides whether its bill is already counted.
  async #billed(
    operation: MusicOperation,
    path: string,
    json: unknown,
    options: BilledMusicCallOptions,
  ): Promise<{ value: unknown; ids: GatewayIds; status: number; replayed: boolean }> {
    const request: TransportRequest = {
      method: "POST",
      url: this.#url(path),
      json,
      headers: callHeaders(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...signalOf(options),
    };
    const reservation = this.#recorder?.reserve({ kind: "music", operation });
    if (reservation?.ready !== undefined) {
      await reservation.ready.catch((error: unknown) => {
        reservation.release();
        throw error;
      });
    }
    if (request.signal?.aborted === true) {
      reservation?.release();
      throw toAbortedError(request.signal.reason);
    }
    try {
      const result = await this.#transport.json(request);
      const replayed = wasReplayed(result.headers);
      reservation?.settle({
        status: "ok",
        ...(result.ids.requestId === undefined ? {} : { requestId: result.ids.requestId }),
        ...(replayed ? { replayed } : {}),
      });
      return { ...result, replayed };
    } catch (error) {
      reservation?.settle({
        status: "failed",
        errorCode: error instanceof SvcFlowError ? error.code : "unknown",
        ...(error instanceof SvcFlowError && error.requestId !== undefined ? { requestId: error.requestId } : {}),
      });
      throw error;
    }
  }
}

function signalOf(options: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal === undefined ? {} : { signal: options.signal };
}
