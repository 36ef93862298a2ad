import { z } from "zod";
import { SvcFlowError } from "../../errors.js";
import type { Clip } from "../../gateway/wire.js";
import { withRetry } from "../../scheduling/retry.js";
import { stringifyValue } from "../expression/index.js";
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
  prompt: z.unknown().transform((value) => (value === undefined ? undefined : typeof value === "string" ? value : stringifyValue(value))).optional(),
  instrumental: z.boolean().optional(),
  // An earlier step's clip object works as well as its id.
  clip: z.union([z.string(), z.looseObject({ id: z.string() }).transform((clip) => clip.id)]).optional(),
  at: z.number().nonnegative().optional(),
  download: z.boolean().default(true),
});
type MusicInput = z.infer<typeof musicInputSchema>;

/**
 * `uses: music`. The job is submitted once: its clip ids are journaled before polling, so a resumed
 * run polls the same clips instead of paying again. Finished audio is downloaded into artifacts/.
 * Output: `{ clips: [{ id, title, duration, audioUrl, artifact, mime, bytes }] }`; lyrics: `{ text, title }`.
 */
export async function runMusicStep(context: LeafContext<MusicStep>, polling: MusicPolling = {}): Promise<unknown> {
  const input = parseStepInput(musicInputSchema, context.input, context.key);
  const { services, signal } = context;
  const music = services.music();
  if (input.operation === "lyrics") {
    const { lyrics } = await withRetry(() => music.lyrics({ prompt: input.prompt ?? "", signal }), context.retry, { signal });
    return { text: lyrics.text, ...(lyrics.title === undefined ? {} : { title: lyrics.title }) };
  }
  let submitted = services.journaledMusic();
  if (submitted === undefined) {
    const { clips, ids } = await withRetry(() => submit(music, input, signal), context.retry, { signal });
    submitted = {
      type: "music-submitted",
      key: context.key,
      operation: input.operation,
      clipIds: clips.map((clip) => clip.id),
      ...(ids.requestId === undefined ? {} : { requestId: ids.requestId }),
      at: new Date().toISOString(),
    };
    await services.journal(submitted);
  }
  const { clips } = await music.waitForClips(submitted.clipIds, { signal, ...polling }).catch((error: unknown) => {
    if (error instanceof SvcFlowError && error.code === "music_failed" && submitted.requestId !== undefined) services.refundMusic(submitted.requestId);
    throw error;
  });
  const outputs = [];
  for (const clip of clips) {
    const saved = input.download ? await withRetry(() => save(context, clip), context.retry, { signal }) : {};
    outputs.push({ ...describe(clip), ...saved });
  }
  return { clips: outputs };
}

type MusicApi = ReturnType<LeafContext["services"]["music"]>;

function submit(music: MusicApi, input: MusicInput, signal: AbortSignal): Promise<{ clips: Clip[]; ids: { requestId?: string } }> {
  const clipId = input.clip ?? "";
  switch (input.operation) {
    case "continuation":
      return music.continuation({ clipId, ...(input.prompt === undefined ? {} : { prompt: input.prompt }), ...(input.at === undefined ? {} : { continueAtS: input.at }), signal });
    case "stems":
      return music.stems({ clipId, signal });
    case "concatenation":
      return music.concatenation({ clipId, signal });
    default:
      return music.generate({ prompt: input.prompt ?? "", ...(input.instrumental === undefined ? {} : { instrumental: input.instrumental }), signal });
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
