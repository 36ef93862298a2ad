import { wavDurationS } from "../media/probe.js";
import type { ClipRecord } from "./music-store.js";

/** The path under the root URL where clip audio is served. */
export const AUDIO_PATH_PREFIX = "/musicapi/audio/";

/** A clip as the music interface returns it; `audio_url` is set once the clip is complete. */
export function clipView(clip: ClipRecord, rootURL: string) {
  const complete = clip.status === "complete" && clip.audio !== undefined;
  return {
    id: clip.id,
    status: clip.status,
    type: clip.type,
    title: clip.title,
    prompt: clip.prompt,
    tags: clip.tags,
    make_instrumental: clip.instrumental,
    model_name: "local-music-1",
    created_at: clip.createdAt,
    audio_url: complete ? `${rootURL}${AUDIO_PATH_PREFIX}${clip.audioId}.wav` : null,
    duration: complete ? (wavDurationS(clip.audio!) ?? null) : null,
    ...(clip.parentId ? { parent_id: clip.parentId } : {}),
    ...(clip.stem ? { stem: clip.stem } : {}),
    ...(clip.continueAtS !== undefined ? { continue_at: clip.continueAtS } : {}),
    ...(clip.errorMessage ? { error_message: clip.errorMessage } : {}),
  };
}
