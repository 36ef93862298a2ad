import { HumanMessage } from "@langchain/core/messages";
import { z } from "zod";
import { imagesFromMessage } from "../../langchain/build-reply-message.js";
import { EmptyOutputError } from "../../errors.js";
import { probeImage } from "../../media/probe.js";
import { stringifyValue } from "../expression/index.js";
import { loadMediaPart } from "../media/load-media.js";
import type { ImageStep } from "../schema/step-schemas.js";
import { parseStepInput } from "./parse-step-input.js";
import { modelOf } from "./run-tool-loop.js";
import type { LeafContext } from "./step-kind.js";

const imageInputSchema = z.object({
  prompt: z.unknown().transform((value) => (typeof value === "string" ? value : stringifyValue(value))),
  source: z.unknown().optional(),
});

/**
 * `uses: image`: generates an image through the chat endpoint, or edits `source` (sent as an image
 * part with the prompt). Output: the image as an artifact, `{ artifact, mime, bytes, width, height, model }`.
 */
export async function runImageStep(context: LeafContext<ImageStep>): Promise<unknown> {
  const input = parseStepInput(imageInputSchema, context.input, context.key);
  const { services, signal } = context;
  const model = services.chatModel({ model: context.models.model!, fallbacks: context.models.fallbacks });
  const source = input.source === undefined || input.source === null || input.source === "" ? undefined : input.source;
  const content = source === undefined
    ? input.prompt
    : [{ type: "text", text: input.prompt }, await loadMediaPart(source, "image", { baseDir: services.baseDir, runDir: services.runDir, signal })];
  const reply = await model.invoke([new HumanMessage({ content })], { signal });
  const [image] = imagesFromMessage(reply);
  if (image === undefined) {
    throw new EmptyOutputError(`${modelOf(reply) ?? context.models.model} answered without an image. Try again, or reword the prompt as a picture to draw.`);
  }
  const reference = await services.artifacts.write(image.bytes, image.mimeType);
  const facts = probeImage(image.bytes);
  return { ...reference, ...(facts === undefined ? {} : { width: facts.width, height: facts.height }), model: modelOf(reply) };
}
