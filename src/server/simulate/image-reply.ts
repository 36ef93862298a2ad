import { countTextTokens } from "../../catalog/tokens.js";
import { decodeImage } from "../../media/decode-image.js";
import { encodePng } from "../../media/png.js";
import { parseDataUri } from "../../media/probe.js";
import { fitRaster, type Raster } from "../../media/raster.js";
import type { Conversation } from "./conversation.js";
import { drawImage, planDrawing } from "./draw-image.js";
import { editImage } from "./edit-image.js";
import { joinWords } from "./filler-text.js";
import { readFacts } from "./prompt-facts.js";
import { hashText } from "./seeded-random.js";
import type { SimulateContext, SimulatedReply } from "./simulated-reply.js";

/** Output tokens one generated image counts for (what image-generating chat models report per image). */
export const IMAGE_OUTPUT_TOKENS = 1290;
/** Edited images keep the source size up to this many pixels a side. */
export const MAX_EDIT_SIDE = 1024;
const CACHE_SIZE = 16;

const cache = new Map<number, { png: Buffer; caption: string }>();

/**
 * An image model's reply: a real PNG inline as `![image](data:image/png;base64,...)` and a caption
 * line. Generated from the prompt (colour words, pattern words, size words), or, when the last user
 * turn carries an image, derived from that image's pixels as the prompt asks.
 */
export async function imageReply(conversation: Conversation, context: SimulateContext): Promise<SimulatedReply> {
  const prompt = conversation.userText;
  const sourcePart = conversation.media.find((part) => part.type === "image_url");
  const sourceUrl = sourcePart?.type === "image_url" ? sourcePart.image_url.url : undefined;
  const key = hashText(context.seed, prompt, sourceUrl ?? "");
  let made = cache.get(key);
  if (!made) {
    made = await make(prompt, sourceUrl, context);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, made);
  }
  const content = `![image](data:image/png;base64,${made.png.toString("base64")})\n\n${made.caption}`;
  return {
    content,
    toolCalls: [],
    finishReason: "stop",
    completionTokens: IMAGE_OUTPUT_TOKENS + countTextTokens(made.caption),
    reasoningTokens: 0,
    images: 1,
  };
}

async function make(
  prompt: string,
  sourceUrl: string | undefined,
  context: SimulateContext,
): Promise<{ png: Buffer; caption: string }> {
  let note = "";
  if (sourceUrl) {
    const source = await loadSource(sourceUrl, context);
    if (source.raster) {
      const fitted = fitRaster(source.raster, MAX_EDIT_SIDE);
      const { raster, actions } = editImage(fitted, prompt, context.seed);
      const caption = `Edited the ${source.raster.width}x${source.raster.height} source image: ${joinWords(actions)} (${raster.width}x${raster.height}).`;
      return { png: encodePng(raster), caption };
    }
    note = ` ${source.problem} so this is a new image rather than an edit.`;
  }
  const plan = planDrawing(prompt, context.seed);
  const topic = readFacts(prompt)
    .keywords.filter((word) => !plan.colourNames.includes(word.toLowerCase()))
    .slice(0, 3);
  const subject = topic.length > 0 ? ` for "${joinWords(topic)}"` : "";
  const caption = `Generated a ${plan.width}x${plan.height} image${subject}: ${plan.pattern} in ${joinWords(plan.colourNames.slice(0, 3))}.${note}`;
  return { png: encodePng(drawImage(plan)), caption };
}

async function loadSource(url: string, context: SimulateContext): Promise<{ raster?: Raster; problem: string }> {
  let bytes: Buffer | undefined;
  if (/^https?:\/\//i.test(url)) {
    bytes = context.fetchImage ? await context.fetchImage(url) : undefined;
    if (!bytes) return { problem: `The source image at ${url} could not be fetched,` };
  } else {
    bytes = parseDataUri(url)?.bytes;
  }
  const image = bytes ? decodeImage(bytes) : undefined;
  if (!image) return { problem: "The source image could not be read," };
  if (!image.raster)
    return {
      problem: `The source image is a ${image.facts.format.toUpperCase()}, whose pixels I cannot decode (send PNG or JPEG),`,
    };
  return { raster: image.raster, problem: "" };
}
