import type { ContentPart } from "../../gateway/wire.js";
import { parseDataUri } from "../../media/probe.js";
import { describeImage } from "./describe-image.js";
import { describeAudio, describeVideo } from "./describe-media.js";

type Kind = "image" | "audio clip" | "video";

/** A sentence for each media part of a message: images, audio clips and videos, in order. */
export async function describeParts(
  parts: readonly ContentPart[],
  fetchImage?: (url: string) => Promise<Buffer | undefined>,
): Promise<string[]> {
  const kinds = parts.map(kindOf);
  const totals = new Map<Kind, number>();
  for (const kind of kinds) if (kind) totals.set(kind, (totals.get(kind) ?? 0) + 1);
  const seen = new Map<Kind, number>();
  const label = (kind: Kind) => {
    const position = (seen.get(kind) ?? 0) + 1;
    seen.set(kind, position);
    return totals.get(kind)! > 1 ? `${kind} ${position}` : `the ${kind}`;
  };
  const sentences: string[] = [];
  for (const [index, part] of parts.entries()) {
    const kind = kinds[index];
    if (!kind) continue;
    if (part.type === "input_audio") {
      sentences.push(
        describeAudio(Buffer.from(part.input_audio.data, "base64"), part.input_audio.format.toLowerCase(), label(kind)),
      );
    } else if (part.type === "video_url" || (part.type === "image_url" && kind === "video")) {
      const url = part.type === "video_url" ? part.video_url.url : part.image_url.url;
      const bytes = parseDataUri(url)?.bytes;
      sentences.push(
        bytes
          ? describeVideo(bytes, label(kind))
          : `I could not read ${label(kind)}: send it as a data:video/mp4;base64 URI.`,
      );
    } else if (part.type === "image_url") {
      sentences.push(await describeImage(part.image_url.url, label(kind), fetchImage));
    }
  }
  return sentences;
}

function kindOf(part: ContentPart): Kind | undefined {
  if (part.type === "input_audio") return "audio clip";
  if (part.type === "video_url") return "video";
  if (part.type === "image_url") return /^data:video\//i.test(part.image_url.url) ? "video" : "image";
  return undefined;
}
