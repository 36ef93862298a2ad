import type { ModelInfo } from "../catalog/models.js";
import { ParameterError } from "../errors.js";
import type { ContentPart } from "../gateway/wire.js";
import { loadMediaPart, type MediaPart } from "../workflow/media/load-media.js";
import type { MediaKind } from "../workflow/media/media-source.js";
import { capabilityMessage, type NeededCapability } from "../workflow/step-models.js";

/** The media given on the command line: files, http(s) URLs or data URIs. */
export interface ChatMedia {
  readonly images: readonly string[];
  readonly audio: readonly string[];
  readonly video: readonly string[];
}

const NEEDS: ReadonlyArray<[keyof ChatMedia, MediaKind, NeededCapability]> = [
  ["images", "image", "vision"],
  ["audio", "audio", "audio"],
  ["video", "video", "video"],
];

const FLAG: Readonly<Record<MediaKind, string>> = { image: "--image", audio: "--audio", video: "--video" };

/**
 * The user turn: the text, then each medium as a content block. A model that cannot take a medium
 * is refused before anything is read; audio other than mp3/wav is refused with the command that
 * converts it (the gateway takes no other format).
 */
export async function buildChatContent(
  text: string,
  media: ChatMedia,
  model: ModelInfo,
  options: { cwd: string; signal?: AbortSignal },
): Promise<string | ContentPart[]> {
  for (const [field, , need] of NEEDS) {
    if (media[field].length > 0 && !model.capabilities[need])
      throw new ParameterError(capabilityMessage(model.id, need));
  }
  const parts: MediaPart[] = [];
  for (const [field, kind] of NEEDS) {
    for (const item of media[field]) {
      parts.push(
        await loadMediaPart(item, kind, {
          baseDir: options.cwd,
          runDir: options.cwd,
          // Here paths are the shell's, not a workflow file's.
          missingFile: (file) =>
            `There is no file ${file} (${FLAG[kind]}). Paths are relative to the current folder; URLs and data URIs work too.`,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        }),
      );
    }
  }
  return parts.length === 0 ? text : [{ type: "text", text }, ...parts];
}
