import type { MediaKind } from "../media/media-source.js";
import type { Step } from "../schema/step-schemas.js";

/** A field of a step that sends media, and what it holds as written (a list, a value or an expression). */
export interface MediaField {
  readonly kind: MediaKind;
  readonly field: "images" | "audio" | "video" | "source";
  readonly value: unknown;
}

/** The media fields a step sets: a chat step's `images`, `audio` and `video`, an image step's `source`. */
export function mediaFields(step: Step): MediaField[] {
  if (!("uses" in step)) return [];
  if (step.uses === "image")
    return step.with.source === undefined ? [] : [{ kind: "image", field: "source", value: step.with.source }];
  if (step.uses !== "chat") return [];
  const fields: MediaField[] = [];
  if (step.with.images !== undefined) fields.push({ kind: "image", field: "images", value: step.with.images });
  if (step.with.audio !== undefined) fields.push({ kind: "audio", field: "audio", value: step.with.audio });
  if (step.with.video !== undefined) fields.push({ kind: "video", field: "video", value: step.with.video });
  return fields;
}
