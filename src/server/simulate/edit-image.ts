import type { Raster } from "../../media/raster.js";
import { colourWordsIn, type Rgb } from "./colour-names.js";
import { mix } from "./draw-image.js";
import { hashText, seededRandom } from "./seeded-random.js";

type PixelEdit = (red: number, green: number, blue: number) => Rgb;

const TINT_AMOUNT = 0.45;

/** The source image changed as the prompt asks, and what was done, in words for the caption. */
export function editImage(source: Raster, prompt: string, seed: number): { raster: Raster; actions: string[] } {
  const edits: PixelEdit[] = [];
  const actions: string[] = [];
  const has = (pattern: RegExp) => pattern.test(prompt);
  if (has(/\b(invert\w*|negative)\b/i)) {
    edits.push((red, green, blue) => [255 - red, 255 - green, 255 - blue]);
    actions.push("inverted the colours");
  }
  if (has(/\b(gr[ae]y\s*scale|black and white|monochrome|desaturate\w*)\b/i)) {
    edits.push((red, green, blue) => {
      const luma = Math.round(0.2126 * red + 0.7152 * green + 0.0722 * blue);
      return [luma, luma, luma];
    });
    actions.push("converted it to grayscale");
  }
  if (has(/\b(brighter|brighten\w*|lighter|lighten\w*)\b/i)) {
    edits.push((red, green, blue) => [Math.min(255, red + 48), Math.min(255, green + 48), Math.min(255, blue + 48)]);
    actions.push("brightened it");
  }
  if (has(/\b(darker|darken\w*|dim|dimmer)\b/i)) {
    edits.push((red, green, blue) => [Math.round(red * 0.6), Math.round(green * 0.6), Math.round(blue * 0.6)]);
    actions.push("darkened it");
  }
  const tint = colourWordsIn(prompt)[0];
  if (tint && !has(/\b(invert\w*|negative|gr[ae]y\s*scale|black and white|monochrome)\b/i)) {
    edits.push((red, green, blue) => mix([red, green, blue], tint.rgb, TINT_AMOUNT));
    actions.push(`tinted it ${tint.name}`);
  }
  let raster = edits.length > 0 ? mapPixels(source, edits) : source;
  if (has(/\b(upside down|flip\w* vertical\w*|vertical flip)\b/i)) {
    raster = remap(raster, raster.width, raster.height, (x, y) => [x, raster.height - 1 - y]);
    actions.push("flipped it vertically");
  } else if (has(/\b(flip\w*|mirror\w*)\b/i)) {
    raster = remap(raster, raster.width, raster.height, (x, y) => [raster.width - 1 - x, y]);
    actions.push("mirrored it");
  }
  if (has(/\brotat\w*\b/i)) {
    const before = raster;
    raster = remap(before, before.height, before.width, (x, y) => [y, before.height - 1 - x]);
    actions.push("rotated it 90 degrees clockwise");
  }
  if (actions.length === 0) {
    raster = frame(raster, prompt, seed);
    actions.push("added a frame and a highlight");
  }
  return { raster, actions };
}

function mapPixels(source: Raster, edits: readonly PixelEdit[]): Raster {
  const data = new Uint8Array(source.data);
  for (let at = 0; at < data.length; at += 4) {
    let colour: Rgb = [data[at]!, data[at + 1]!, data[at + 2]!];
    for (const edit of edits) colour = edit(...colour);
    data[at] = colour[0];
    data[at + 1] = colour[1];
    data[at + 2] = colour[2];
  }
  return { width: source.width, height: source.height, data };
}

/** A new raster whose pixel (x, y) is the source pixel `from(x, y)`. */
function remap(
  source: Raster,
  width: number,
  height: number,
  from: (x: number, y: number) => [number, number],
): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [sourceX, sourceY] = from(x, y);
      const at = (sourceY * source.width + sourceX) * 4;
      data.set(source.data.subarray(at, at + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data };
}

// With no recognisable instruction the edit still visibly derives from the source: a frame in a
// colour from the prompt and a soft highlight, the source showing through everywhere else.
function frame(source: Raster, prompt: string, seed: number): Raster {
  const random = seededRandom(hashText(seed, prompt, "frame"));
  const colour: Rgb = colourWordsIn(prompt)[0]?.rgb ?? [random.int(0, 255), random.int(0, 255), random.int(0, 255)];
  const border = Math.max(1, Math.round(Math.min(source.width, source.height) * 0.06));
  const centreX = source.width * (0.3 + random.next() * 0.4);
  const centreY = source.height * (0.3 + random.next() * 0.4);
  const radius = Math.min(source.width, source.height) * 0.25;
  const data = new Uint8Array(source.data);
  for (let y = 0; y < source.height; y++) {
    for (let x = 0; x < source.width; x++) {
      const at = (y * source.width + x) * 4;
      const edge = x < border || y < border || x >= source.width - border || y >= source.height - border;
      const inside = Math.hypot(x - centreX, y - centreY) < radius;
      if (!edge && !inside) continue;
      const mixed = edge ? colour : mix([data[at]!, data[at + 1]!, data[at + 2]!], [255, 255, 255], 0.35);
      data[at] = mixed[0];
      data[at + 1] = mixed[1];
      data[at + 2] = mixed[2];
      if (edge) data[at + 3] = 255;
    }
  }
  return { width: source.width, height: source.height, data };
}
