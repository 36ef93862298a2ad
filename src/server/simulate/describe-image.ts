import { decodeImage } from "../../media/decode-image.js";
import { parseDataUri } from "../../media/probe.js";
import type { Raster } from "../../media/raster.js";
import { dominantColours, type NamedShare } from "./colour-names.js";

const FORMAT_LABELS = { png: "PNG", jpeg: "JPEG", gif: "GIF", webp: "WebP" } as const;
const MIN_SHARE = 0.04;

/** One sentence about an image part: its size and format, and its colours decoded from its pixels. */
export async function describeImage(
  url: string,
  label: string,
  fetchImage?: (url: string) => Promise<Buffer | undefined>,
): Promise<string> {
  let bytes: Buffer | undefined;
  if (/^https?:\/\//i.test(url)) {
    bytes = fetchImage ? await fetchImage(url) : undefined;
    if (!bytes) return `I could not fetch ${label} from ${url}, so I cannot say what it shows.`;
  } else {
    bytes = parseDataUri(url)?.bytes;
    if (!bytes) return `${capital(label)} is not a URL or data URI I can read.`;
  }
  const image = decodeImage(bytes);
  if (!image) return `${capital(label)} is not a PNG, JPEG, GIF or WebP image I can read.`;
  const { facts, raster } = image;
  const shape = facts.width === facts.height ? "square" : facts.width > facts.height ? "landscape" : "portrait";
  const head = `${capital(label)} is a ${facts.width}x${facts.height} ${FORMAT_LABELS[facts.format]} (${shape})`;
  if (!raster) return `${head}; I can read its size but not its colours, since only PNG and JPEG pixels are decoded.`;
  return `${head}, ${colourPhrase(dominantColours(raster))}, with an overall brightness of ${brightness(raster)}%.`;
}

/** "mostly red (#d02020) with some white (#fefefe) and a little blue (#2020d0)". */
export function colourPhrase(shares: readonly NamedShare[]): string {
  const shown = shares.filter((share) => share.share >= MIN_SHARE).slice(0, 3);
  if (shown.length === 0) return "with no single dominant colour";
  const [first, ...rest] = shown;
  const lead =
    first!.share >= 0.97
      ? "entirely"
      : first!.share >= 0.6
        ? "mostly"
        : first!.share >= 0.35
          ? "largely"
          : "a mix led by";
  const parts = rest.map((share) => `${share.share >= 0.15 ? "some" : "a little"} ${share.name} (${share.hex})`);
  const tail = parts.length === 0 ? "" : ` with ${parts.join(" and ")}`;
  return `${lead} ${first!.name} (${first!.hex})${tail}`;
}

/** Mean luminance of an image, 0..100. */
export function brightness(raster: Raster): number {
  const pixels = raster.width * raster.height;
  const stride = Math.max(1, Math.floor(pixels / 65_536));
  let total = 0;
  let count = 0;
  for (let pixel = 0; pixel < pixels; pixel += stride) {
    const at = pixel * 4;
    total += 0.2126 * raster.data[at]! + 0.7152 * raster.data[at + 1]! + 0.0722 * raster.data[at + 2]!;
    count++;
  }
  return Math.round((total / count / 255) * 100);
}

function capital(text: string): string {
  return text[0]!.toUpperCase() + text.slice(1);
}
