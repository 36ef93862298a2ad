import { randomUUID } from "node:crypto";
import type { MusicOperation } from "../catalog/prices.js";
import type { GatewayConfig } from "./config.js";
import { hashString, mulberry32 } from "./faults.js";
import type { KeyAccount } from "./key-account.js";

/** What a clip is, as given when it is submitted (without its renderer: what a state file keeps). */
export interface ClipData {
  readonly type: "gen" | "extend" | "stem" | "concat";
  readonly prompt: string;
  readonly title: string;
  readonly tags: string;
  readonly instrumental: boolean;
  readonly parentId?: string;
  readonly stem?: "vocals" | "accompaniment";
  readonly continueAtS?: number;
}

/** A clip to make: its description and how its audio is made. */
export interface ClipSpec extends ClipData {
  /** Makes the clip's audio (a WAV file) from its seed. */
  readonly render: (seed: number) => Buffer;
}

/** A clip the store keeps. */
export interface ClipRecord extends ClipSpec {
  readonly id: string;
  /** The unguessable id in the clip's audio URL, which players fetch without a key. */
  readonly audioId: string;
  readonly owner: KeyAccount;
  readonly createdAt: string;
  status: "submitted" | "complete" | "error";
  audio?: Buffer;
  errorMessage?: string;
}

/** A submitted job as a state folder keeps it: enough to rebuild its clips and finish it on time. */
export interface MusicJobRecord {
  readonly requestId: string;
  readonly credits: number;
  readonly fails: boolean;
  /** When its clips complete, in ms since the epoch. */
  readonly completeAt: number;
  readonly clips: ReadonlyArray<
    ClipData & { readonly id: string; readonly audioId: string; readonly createdAt: string }
  >;
}

/** One billed call that made clips. */
interface Job {
  readonly requestId: string;
  readonly owner: KeyAccount;
  readonly credits: number;
  readonly clips: ClipRecord[];
  readonly fails: boolean;
}

/** Music clips and their jobs: completion after `completeAfterMs`, seeded failures with refunds. */
export class MusicStore {
  readonly #config: GatewayConfig["music"];
  readonly #seed: number;
  readonly #random: () => number;
  readonly #clips = new Map<string, ClipRecord>();
  readonly #byAudioId = new Map<string, ClipRecord>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #onRefund: ((owner: KeyAccount, requestId: string) => void) | undefined;
  #creditsUsed = 0;
  /** Told of every submitted job (a gateway with a state folder writes it down). */
  onSubmitted: ((owner: KeyAccount, job: MusicJobRecord) => void) | undefined;

  constructor(config: GatewayConfig["music"], seed: number, onRefund?: (owner: KeyAccount, requestId: string) => void) {
    this.#config = config;
    this.#seed = seed;
    this.#onRefund = onRefund;
    this.#random = mulberry32(hashString("musicapi", seed));
  }

  /** Upstream capacity left, as `get_limit` reports it. */
  get creditsLeft(): number {
    return this.#config.credits - this.#creditsUsed;
  }

  /** Seconds of a generated clip. */
  get clipSeconds(): number {
    return this.#config.clipSeconds;
  }

  /** Starts a billed job; its clips complete (or fail and are refunded) after completeAfterMs. */
  submit(owner: KeyAccount, requestId: string, credits: number, specs: readonly ClipSpec[]): ClipRecord[] {
    const createdAt = new Date().toISOString();
    const clips = specs.map(
      (spec): ClipRecord => ({
        ...spec,
        id: randomUUID(),
        audioId: randomUUID(),
        owner,
        createdAt,
        status: "submitted",
      }),
    );
    const fails = this.#random() < this.#config.failRate;
    const completeAt = Date.now() + this.#config.completeAfterMs;
    this.onSubmitted?.(owner, { requestId, credits, fails, completeAt, clips: clips.map(clipData) });
    this.#start({ requestId, owner, credits, clips, fails }, completeAt);
    return clips;
  }

  /** Takes back a job an earlier gateway submitted (read from its state folder): finished now if its time has passed. */
  restore(owner: KeyAccount, job: MusicJobRecord, specOf: (data: ClipData) => ClipSpec): void {
    const clips = job.clips.map((data): ClipRecord => {
      const { id, audioId, createdAt, ...rest } = data;
      return { ...specOf(rest), id, audioId, createdAt, owner, status: "submitted" };
    });
    this.#start({ requestId: job.requestId, owner, credits: job.credits, clips, fails: job.fails }, job.completeAt);
  }

  #start(job: Job, completeAt: number): void {
    for (const clip of job.clips) {
      this.#clips.set(clip.id, clip);
      this.#byAudioId.set(clip.audioId, clip);
    }
    this.#creditsUsed += job.credits;
    const wait = completeAt - Date.now();
    if (this.#config.completeAfterMs === 0 || wait <= 0) this.#finish(job);
    else {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#finish(job);
      }, wait);
      timer.unref();
      this.#timers.add(timer);
    }
  }

  /** A clip by id, when it belongs to the account. */
  clip(id: string, owner: KeyAccount): ClipRecord | undefined {
    const clip = this.#clips.get(id);
    return clip?.owner === owner ? clip : undefined;
  }

  /** Every clip of an account, oldest first. */
  clipsOf(owner: KeyAccount): ClipRecord[] {
    return [...this.#clips.values()].filter((clip) => clip.owner === owner);
  }

  /** The audio of a completed clip, by the id in its audio URL. */
  audio(audioId: string): Buffer | undefined {
    const clip = this.#byAudioId.get(audioId);
    return clip?.status === "complete" ? clip.audio : undefined;
  }

  /** The seed a clip's audio is made from. */
  seedOf(clip: ClipRecord): number {
    return hashString(clip.id, this.#seed);
  }

  /** The audio of a clip, made now if the clip has not completed yet (for clips built on it). */
  audioOf(clip: ClipRecord): Buffer {
    clip.audio ??= clip.render(this.seedOf(clip));
    return clip.audio;
  }

  /** Stops pending completions. */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #finish(job: Job): void {
    let failure = job.fails
      ? "The music service failed to generate this clip; the call was refunded. Submit it again."
      : undefined;
    if (!failure) {
      try {
        for (const clip of job.clips) this.audioOf(clip);
      } catch (error) {
        failure = `The music service could not make this clip (${(error as Error).message}); the call was refunded.`;
      }
    }
    for (const clip of job.clips) {
      clip.status = failure ? "error" : "complete";
      if (failure) {
        clip.errorMessage = failure;
        delete clip.audio;
      }
    }
    if (failure) {
      this.#creditsUsed -= job.credits;
      job.owner.refund(job.requestId);
      this.#onRefund?.(job.owner, job.requestId);
    }
  }
}

function clipData(clip: ClipRecord): MusicJobRecord["clips"][number] {
  const { id, audioId, createdAt, type, prompt, title, tags, instrumental, parentId, stem, continueAtS } = clip;
  return {
    id,
    audioId,
    createdAt,
    type,
    prompt,
    title,
    tags,
    instrumental,
    ...(parentId === undefined ? {} : { parentId }),
    ...(stem === undefined ? {} : { stem }),
    ...(continueAtS === undefined ? {} : { continueAtS }),
  };
}

/** Credits of upstream capacity each music operation uses. */
export const MUSIC_CREDITS: Readonly<Record<MusicOperation, number>> = {
  generate: 10,
  continuation: 5,
  stems: 5,
  lyrics: 0,
  concatenation: 0,
  get_limit: 0,
};
