import { z } from "zod";
import { imagesFromReply } from "../../chat/decode-image-reply.js";
import { EmptyOutputError } from "../../errors.js";
import { probeImage } from "../../media/probe.js";
import { stringifyValue } from "../expression/index.js";
import { loadMediaPart } from "../media/load-media.js";
import type { ImageStep } from "../schema/step-schemas.js";
import { parseStepInput } from "./parse-step-input.js";
import type { LeafContext } from "./step-kind.js";

const imageInputSchema = z.object({
  prompt: z.unknown().transform((value) => (typeof value === "string" ? value : stringifyValue(value))),
  source: z.unknown().optional(),
});

/**
 * `uses: image`: generates an image through the chat endpoint, or edits `source` (sent as an image
 * part with the prompt). An image the reply links to is downloaded. Output: the image as an artifact, `{ artifact, mime, bytes, width, height, model }`.
 */
export async function runImageStep(context: LeafContext<ImageStep>): Promise<unknown> {
  const input = parseStepInput(imageInputSchema, context.input, context.key);
  const { services, signal } = context;
  const source = input.source === undefined || input.source === null || input.source === "" ? undefined : input.source;
  const content =
    source === undefined
      ? input.prompt
      : [
          { type: "text" as const, text: input.prompt },
          await loadMediaPart(source, "image", { baseDir: services.baseDir, runDir: services.runDir, signal }),
        ];
  const reply = await services.chat(
    { model: context.models.model!, fallbacks: context.models.fallbacks, messages: [{ role: "user", content }] },
    signal,
  );
  // A relay may give the image as a link instead of inline: it is downloaded and kept the same way.
  const link = reply.imageLinks[0];
  const image =
    imagesFromReply(reply.content)[0] ?? (link === undefined ? undefined : await services.downloadImage(link, signal));
  if (image === undefined) {
    throw new EmptyOutputError(
      `${reply.model} answered without an image. Try again, or reword the prompt as a picture to draw.`,
    );
  }
  const reference = await services.artifacts.write(image.bytes, image.mimeType);
  const facts = probeImage(image.bytes);
  return {
    ...reference,
    ...(facts === undefined ? {} : { width: facts.width, height: facts.height }),
    model: reply.model,
  };
}
