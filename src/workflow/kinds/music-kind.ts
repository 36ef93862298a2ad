import { z } from "zod";
import { SvcFlowError } from "../../errors.js";
import type { MusicClient, MusicClipsResult } from "../../gateway/music-client.js";
import { clipsOfEarlierJob } from "../../gateway/wait-for-clips.js";
import type { Clip } from "../../gateway/wire.js";
import { withRetry } from "../../scheduling/retry.js";
import { stringifyValue } from "../expression/index.js";
import type { JournaledMusicJob } from "../run/journal-records.js";
import type { MusicStep } from "../schema/step-schemas.js";
import { MUSIC_STEP_OPERATIONS } from "../schema/with-schemas.js";
import { parseStepInput } from "./parse-step-input.js";
import type { LeafContext } from "./step-kind.js";

/** How music steps poll for finished clips. */
export interface MusicPolling {
  /** First wait between polls (it grows). Default: the music client's (2000). */
  readonly pollIntervalMs?: number;
  /** Give up waiting after this long. Default: the music client's (300000). */
  readonly timeoutMs?: number;
}

const musicInputSchema = z.object({
  operation: z.enum(MUSIC_STEP_OPERATIONS).default("generate"),
  prompt: z
    .unknown()
    .transform((value) => (value === undefined ? undefined : typeof value === "string" ? value : stringifyValue(value)))
    .optional(),
  instrumental: z.boolean().optional(),
  // An earlier step's clip object works as well as its id.
  clip: z.union([z.string(), z.looseObject({ id: z.string() }).transform((clip) => clip.id)]).optional(),
  at: z.number().nonnegative().optional(),
  download: z.boolean().default(true),
});
type MusicInput = z.infer<typeof musicInputSchema>;

/**
 * `uses: music`. The job is submitted once: its clip ids are journaled with the call's bill, before
 * polling, so a resumed run looks the same job up instead of paying again. Finished audio is
 * downloaded into artifacts/.
 * Output: `{ clips: [{ id, title, duration, audioUrl, artifact, mime, bytes }] }`; lyrics: `{ text, title }`.
 */
export async function runMusicStep(context: LeafContext<MusicStep>, polling: MusicPolling = {}): Promise<unknown> {
  const input = parseStepInput(musicInputSchema, context.input, context.key);
  const { services, signal } = context;
  if (input.operation === "lyrics") {
    const { lyrics } = await withRetry(
      () => services.music().lyrics({ prompt: input.prompt ?? "", signal }),
      context.retry,
      { signal },
    );
    return { text: lyrics.text, ...(lyrics.title === undefined ? {} : { title: lyrics.title }) };
  }
  // A job an earlier execution of this step paid for (the run was resumed, or the item was taken over
  // from a worker that died) is looked up before anything is sent. Complete: its clips are used, and
  // nothing is sent or billed. Still running: it is polled as if just submitted. Failed (at the first
  // look): the spec has failed music refunded automatically, so its refund is recorded (once: refunds
  // go by request id, in the ledger and in Redis) and the step submits anew. The local gateway forgets
  // a refunded job's idempotency key, so that is a new job and a new bill; a gateway that kept the key
  // would replay the failed job, which then fails the step with its refund already counted. A job that
  // fails while this execution polls it fails the step, as in any run; resuming then submits anew.
  const journaled = services.journaledMusic();
  let clips =
    journaled === undefined
      ? undefined
      : await clipsOfEarlierJob((onPoll) => clipsOf(context, journaled, polling, onPoll));
  if (clips === undefined) {
    const job = await withRetry(
      () => services.submitMusic(input.operation, (music) => submit(music, input, signal)),
      context.retry,
      { signal },
    );
    clips = await clipsOf(context, job, polling);
  }
  const outputs = [];
  for (const clip of clips) {
    const saved = input.download ? await withRetry(() => save(context, clip), context.retry, { signal }) : {};
    outputs.push({ ...describe(clip), ...saved });
  }
  return { clips: outputs };
}

/** Polls a job until its clips are complete; a failed job was refunded by the gateway, which is recorded before music_failed is thrown. */
async function clipsOf(
  context: LeafContext<MusicStep>,
  job: JournaledMusicJob,
  polling: MusicPolling,
  onPoll?: () => void,
): Promise<Clip[]> {
  try {
    const { clips } = await context.services
      .music()
      .waitForClips(job.clipIds, { signal: context.signal, ...polling, ...(onPoll === undefined ? {} : { onPoll }) });
    return clips;
  } catch (error) {
    if (error instanceof SvcFlowError && error.code === "music_failed" && job.requestId !== undefined)
      context.services.refundMusic(job.requestId);
    throw error;
  }
}

function submit(music: MusicClient, input: MusicInput, signal: AbortSignal): Promise<MusicClipsResult> {
  const clipId = input.clip ?? "";
  switch (input.operation) {
    case "continuation":
      return music.continuation({
        clipId,
        ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
        ...(input.at === undefined ? {} : { continueAtS: input.at }),
        signal,
      });
    case "stems":
      return music.stems({ clipId, signal });
    case "concatenation":
      return music.concatenation({ clipId, signal });
    default:
      return music.generate({
        prompt: input.prompt ?? "",
        ...(input.instrumental === undefined ? {} : { instrumental: input.instrumental }),
        signal,
      });
  }
}

function describe(clip: Clip) {
  return {
    id: clip.id,
    ...(clip.title == null ? {} : { title: clip.title }),
    ...(clip.duration == null ? {} : { duration: clip.duration }),
    ...(clip.audio_url == null || clip.audio_url.startsWith("data:") ? {} : { audioUrl: clip.audio_url }),
  };
}

async function save(context: LeafContext<MusicStep>, clip: Clip) {
  const audio = await context.services.music().download(clip, { signal: context.signal });
  return context.services.artifacts.write(audio.bytes, audio.contentType ?? "audio/wav");
}
