import { mkdir } from "node:fs/promises";
import path from "node:path";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { SvcFlowError, TimeoutError, UpstreamError } from "../src/errors.js";
import type { MusicClient, MusicClipsResult } from "../src/gateway/music-client.js";
import { clipsOfEarlierJob } from "../src/gateway/wait-for-clips.js";
import type { Clip } from "../src/gateway/wire.js";
import { positiveInteger, requireWorkspace } from "./support/check-option.js";
import { musicRefund, withMusicClient, type GatewayAccess } from "./support/gateway-access.js";
import { musicCallName, type LoggedMusicJob, type MusicJobLog } from "./support/music-job-log.js";
import { slugFromText } from "./support/workspace-media.js";
import { resolveWorkspacePath } from "./support/workspace-path.js";

/** Options of the compose_music tool. */
export interface ComposeMusicToolOptions extends GatewayAccess {
  /** Folder the clips are written to. */
  workspace: string;
  /** A music client to use. Default: one over `gateway`, billed to `ledger`, closed after each call. */
  music?: MusicClient;
  /** Records the gateway's refund of a music job that failed. Default: `ledger.refund` when the ledger is a CostLedger. */
  refundMusic?: (requestId: string) => void;
  /** Keeps the jobs the tool starts (a workflow step's journal), so a call repeated after a resume looks its job up
   * instead of paying again. Default: none; every call submits. */
  jobs?: MusicJobLog;
  /** How long to wait for the clips. Default 300000 ms. */
  timeoutMs?: number;
  /** First wait between polls (it grows by half each poll). Default 2000 ms. */
  pollIntervalMs?: number;
}

/** Input of the compose_music tool. */
export const composeMusicSchema = z.object({
  prompt: z
    .string()
    .min(1)
    .max(3000)
    .describe(
      'The music wanted: genre, mood, tempo, instruments, length, e.g. "an upbeat ukulele jingle, 15 seconds".',
    ),
  instrumental: z.boolean().optional().describe("true for music without vocals. Default false."),
  name: z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe(
      'File-name stem for the clips: "jingle" saves music/jingle-1.wav and music/jingle-2.wav (a later job goes on with -3, -4). Default: words of the prompt.',
    ),
});

const AUDIO_EXTENSIONS = new Set(["mp3", "wav", "m4a", "ogg", "flac", "aac"]);

function extensionOf(clip: Clip): string {
  const pathname = URL.canParse(clip.audio_url ?? "") ? new URL(clip.audio_url!).pathname : "";
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase() ?? "";
  return AUDIO_EXTENSIONS.has(extension) ? extension : "mp3";
}

function jobOf({ clips, ids }: MusicClipsResult): LoggedMusicJob {
  return {
    clipIds: clips.map((clip) => clip.id),
    ...(ids.requestId === undefined ? {} : { requestId: ids.requestId }),
  };
}

/** What the model hears when the clips of `job` did not come: a timeout says what calling again costs; a failed job is refunded. */
function failure(
  error: unknown,
  job: LoggedMusicJob,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  refund: ((requestId: string) => void) | undefined,
): unknown {
  if (error instanceof TimeoutError && signal?.aborted !== true) {
    // waitForClips says to wait again; the model has no tool for that, so it hears what calling again costs.
    return new TimeoutError(
      `The clips (${job.clipIds.join(", ")}) were not ready after ${timeoutMs / 1000} s; they may still finish and stay billed. ` +
        "Calling compose_music again submits a new job, billed again; say in your answer that the music is late instead.",
      { cause: error },
    );
  }
  if (!(error instanceof SvcFlowError) || error.code !== "music_failed") return error;
  if (job.requestId !== undefined) refund?.(job.requestId);
  return new UpstreamError(
    "The music job failed upstream; the gateway refunds it, so nothing was spent. Call compose_music again, perhaps with a simpler prompt.",
    { code: "music_failed", retryable: false, cause: error },
  );
}

/** Creates the `compose_music` tool: submits a music job, waits for its two clips and saves them in the workspace. */
export function createComposeMusicTool(options: ComposeMusicToolOptions) {
  const workspace = requireWorkspace(options.workspace, "compose_music");
  const timeoutMs = positiveInteger("timeoutMs", options.timeoutMs, 300_000);
  const pollIntervalMs = positiveInteger("pollIntervalMs", options.pollIntervalMs, 2_000);
  const refund = musicRefund(options.ledger, options.refundMusic);
  return tool(
    async ({ prompt, instrumental = false, name }, config) => {
      const signal = config?.signal;
      await mkdir(workspace, { recursive: true });
      const stem = slugFromText(name ?? prompt, "music");
      return withMusicClient(options, async (music) => {
        const polling = { timeoutMs, pollIntervalMs, ...(signal === undefined ? {} : { signal }) };
        const clipsOf = async (job: LoggedMusicJob, onPoll?: () => void): Promise<Clip[]> => {
          try {
            return (await music.waitForClips(job.clipIds, { ...polling, ...(onPoll === undefined ? {} : { onPoll }) }))
              .clips;
          } catch (error) {
            throw failure(error, job, signal, timeoutMs, refund);
          }
        };
        // A job an earlier execution of this step paid for with the same call (the run was resumed) is
        // looked up first, by the rules of a music step: complete, its clips are used and nothing is
        // billed; running, it is polled; failed at the first look, its refund is recorded (once, by
        // request id) and the call submits anew, a new job the gateway bills anew.
        const call = musicCallName("generate", { prompt, instrumental });
        const earlier = options.jobs?.find(call);
        let finished =
          earlier === undefined ? undefined : await clipsOfEarlierJob((onPoll) => clipsOf(earlier, onPoll));
        if (finished === undefined) {
          const start = (client: MusicClient) =>
            client.generate({ prompt, instrumental, ...(signal === undefined ? {} : { signal }) });
          const job =
            options.jobs === undefined ? jobOf(await start(music)) : await options.jobs.submit("generate", call, start);
          finished = await clipsOf(job);
        }
        const saved = [];
        let number = 1;
        for (const clip of finished) {
          // Clips are numbered on from what is there: a second job's clips follow the first's.
          let target = await resolveWorkspacePath(workspace, `music/${stem}-${number}.${extensionOf(clip)}`);
          while (target.exists)
            target = await resolveWorkspacePath(workspace, `music/${stem}-${++number}.${extensionOf(clip)}`);
          number++;
          await mkdir(path.dirname(target.absolute), { recursive: true });
          const audio = await music.download(clip, {
            path: target.absolute,
            ...(signal === undefined ? {} : { signal }),
          });
          saved.push({
            id: clip.id,
            path: target.relative,
            bytes: audio.size,
            ...(typeof clip.duration === "number" ? { seconds: clip.duration } : {}),
            ...(typeof clip.title === "string" && clip.title !== "" ? { title: clip.title } : {}),
          });
        }
        return JSON.stringify({ clips: saved, instrumental });
      });
    },
    {
      name: "compose_music",
      description:
        "Composes music from a text prompt with the gateway's music service: submits one job (billed ¥2), waits " +
        "until its two clips are ready (this can take minutes) and saves both audio files in the workspace under " +
        "music/. Returns JSON with each clip's id, saved path and size. A job that fails upstream is refunded " +
        "and reported; calling again is fine. Do not imitate real artists.",
      schema: composeMusicSchema,
    },
  );
}
