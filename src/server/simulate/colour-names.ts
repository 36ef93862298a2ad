import type { Raster } from "../../media/raster.js";

/** An RGB colour, 0-255 per channel. */
export type Rgb = readonly [number, number, number];

/** A colour as a person would name it, with its share of an image. */
export interface NamedShare {
  readonly name: string;
  /** Mean colour of the pixels given this name, as #rrggbb. */
  readonly hex: string;
  /** 0..1 of the sampled pixels. */
  readonly share: number;
}

/** Colour words a prompt may use, and the colour each stands for. */
export const COLOUR_WORDS: Readonly<Record<string, Rgb>> = {
  red: [220, 40, 40],
  orange: [240, 140, 30],
  yellow: [245, 215, 50],
  green: [40, 160, 70],
  blue: [40, 90, 220],
  purple: [130, 60, 180],
  violet: [140, 90, 210],
  pink: [240, 130, 180],
  magenta: [210, 50, 170],
  cyan: [40, 200, 220],
  teal: [20, 140, 140],
  turquoise: [60, 210, 200],
  brown: [130, 80, 40],
  black: [15, 15, 15],
  white: [245, 245, 245],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  gold: [212, 175, 55],
  golden: [212, 175, 55],
  silver: [192, 192, 192],
  navy: [20, 30, 110],
  maroon: [120, 20, 40],
  olive: [120, 120, 40],
  lime: [150, 220, 50],
  beige: [225, 210, 170],
  indigo: [75, 40, 160],
  crimson: [200, 20, 60],
  coral: [250, 120, 90],
  lavender: [190, 170, 230],
  amber: [255, 190, 0],
  emerald: [30, 150, 90],
  scarlet: [240, 30, 20],
};

/** The colour words in a text, in order of first appearance. */
export function colourWordsIn(text: string): Array<{ name: string; rgb: Rgb }> {
  const found: Array<{ name: string; rgb: Rgb; at: number }> = [];
  for (const [name, rgb] of Object.entries(COLOUR_WORDS)) {
    const at = text.search(new RegExp(`\\b${name}\\b`, "i"));
    if (at >= 0) found.push({ name, rgb, at });
  }
  return found.sort((a, b) => a.at - b.at).map(({ name, rgb }) => ({ name, rgb }));
}

/** The everyday name of an RGB colour, by hue, saturation and lightness. */
export function nameColour(red: number, green: number, blue: number): string {
  const max = Math.max(red, green, blue);
  const min = Math.min(red, green, blue);
  const lightness = (max + min) / 510;
  const chroma = (max - min) / 255;
  if (chroma < 0.12) return lightness < 0.2 ? "black" : lightness > 0.85 ? "white" : "gray";
  if (lightness < 0.1) return "black";
  if (lightness > 0.93) return "white";
  let hue: number;
  if (max === red) hue = ((green - blue) / (max - min) + 6) % 6;
  else if (max === green) hue = (blue - red) / (max - min) + 2;
  else hue = (red - green) / (max - min) + 4;
  hue *= 60;
  if (hue < 15 || hue >= 345) return lightness > 0.75 ? "pink" : "red";
  if (hue < 40) return lightness < 0.4 ? "brown" : "orange";
  if (hue < 70) return lightness < 0.3 ? "brown" : "yellow";
  if (hue < 165) return "green";
  if (hue < 195) return "cyan";
  if (hue < 255) return "blue";
  if (hue < 290) return "purple";
  if (hue < 330) return "magenta";
  return "pink";
}

/** #rrggbb of a colour. */
export function toHex([red, green, blue]: Rgb): string {
  return `#${[red, green, blue].map((channel) => Math.round(channel).toString(16).padStart(2, "0")).join("")}`;
}

/** The named colours of an image, largest share first; transparent pixels count as "transparent". */
export function dominantColours(raster: Raster, maxSamples = 65_536): NamedShare[] {
  const pixels = raster.width * raster.height;
  const stride = Math.max(1, Math.floor(pixels / maxSamples));
  const buckets = new Map<string, { count: number; red: number; green: number; blue: number }>();
  let sampled = 0;
  for (let pixel = 0; pixel < pixels; pixel += stride) {
    const at = pixel * 4;
    const red = raster.data[at]!;
    const green = raster.data[at + 1]!;
    const blue = raster.data[at + 2]!;
    const name = raster.data[at + 3]! < 16 ? "transparent" : nameColour(red, green, blue);
    const bucket = buckets.get(name) ?? { count: 0, red: 0, green: 0, blue: 0 };
    bucket.count++;
    bucket.red += red;
    bucket.green += green;
    bucket.blue += blue;
    buckets.set(name, bucket);
    sampled++;
  }
  return [...buckets.entries()]
    .map(([name, bucket]) => ({
      name,
      hex: toHex([bucket.red / bucket.count, bucket.green / bucket.count, bucket.blue / bucket.count]),
      share: bucket.count / sampled,
    }))
    .sort((a, b) => b.share - a.share || (a.name < b.name ? -1 : 1));
}
