import { createRaster, type Raster } from "../../media/raster.js";
import { colourWordsIn, nameColour, type Rgb } from "./colour-names.js";
import { hashText, seededRandom } from "./seeded-random.js";

/** The patterns generated images are made of. */
export const PATTERNS = ["gradient", "stripes", "checker", "circle", "rings", "diagonal"] as const;
/** One of PATTERNS. */
export type Pattern = (typeof PATTERNS)[number];

/** What an image prompt asks for, read from its words and hash. */
export interface DrawPlan {
  readonly width: number;
  readonly height: number;
  readonly pattern: Pattern;
  readonly colours: readonly Rgb[];
  /** Names of the colours, for the caption. */
  readonly colourNames: readonly string[];
  /** Seed of the pattern's details (stripe count, circle position). */
  readonly detailSeed: number;
}

const MAX_SIDE = 1024;
const PATTERN_WORDS: ReadonlyArray<[RegExp, Pattern]> = [
  [/\b(stripe[sd]?|lines|flag|bands?)\b/i, "stripes"],
  [/\b(checker\w*|chess\w*|grid|tiles?|plaid|mosaic)\b/i, "checker"],
  [/\b(rings?|target|ripples?|spiral|concentric)\b/i, "rings"],
  [/\b(circle|sun|moon|ball|planet|dot|orb|round|logo)\b/i, "circle"],
  [/\b(gradient|sky|sunset|sunrise|ocean|horizon|fade|landscape)\b/i, "gradient"],
  [/\b(diagonal|slash|zigzag|lightning)\b/i, "diagonal"],
];

/** Size, pattern and colours for a prompt: colour words give the colours, the hash fills the rest. */
export function planDrawing(prompt: string, seed: number): DrawPlan {
  const hash = hashText(seed, prompt);
  const random = seededRandom(hash);
  const named = colourWordsIn(prompt).slice(0, 4);
  const colours: Rgb[] = named.map((entry) => entry.rgb);
  const colourNames = named.map((entry) => entry.name);
  while (colours.length < 3) {
    const colour = hslToRgb(random.int(0, 359), 0.45 + random.next() * 0.4, 0.3 + random.next() * 0.45);
    colours.push(colour);
    colourNames.push(nameColour(...colour));
  }
  const pattern = PATTERN_WORDS.find(([words]) => words.test(prompt))?.[1] ?? random.pick(PATTERNS);
  return { ...sizeFor(prompt), pattern, colours, colourNames, detailSeed: random.int(0, 0x7fffffff) };
}

function sizeFor(prompt: string): { width: number; height: number } {
  const explicit = /\b(\d{2,4})\s*[x×]\s*(\d{2,4})\b/.exec(prompt);
  const clamp = (value: number) => Math.max(16, Math.min(MAX_SIDE, value));
  if (explicit) return { width: clamp(Number(explicit[1])), height: clamp(Number(explicit[2])) };
  const base = /\b(large|poster|hd|high[- ]resolution|detailed|4k|wallpaper)\b/i.test(prompt)
    ? 512
    : /\b(small|icon|thumbnail|tiny|favicon)\b/i.test(prompt)
      ? 128
      : 256;
  if (/\b(wide|banner|panorama|panoramic|16:9|header)\b/i.test(prompt)) return { width: base * 2, height: base };
  if (/\b(tall|portrait|phone|vertical poster|9:16)\b/i.test(prompt)) return { width: base, height: base * 2 };
  return { width: base, height: base };
}

/** Paints a plan into pixels. */
export function drawImage(plan: DrawPlan): Raster {
  const { width, height, colours } = plan;
  const random = seededRandom(plan.detailSeed);
  const raster = createRaster(width, height);
  const [first, second, third] = [colours[0]!, colours[1]!, colours[2]!];
  const bands = random.int(3, 8);
  const vertical = random.chance(0.5);
  const cell = random.int(2, 8) * 8;
  const centreX = width * (0.3 + random.next() * 0.4);
  const centreY = height * (0.3 + random.next() * 0.4);
  const radius = Math.min(width, height) * (0.2 + random.next() * 0.15);
  const ringWidth = Math.max(4, Math.min(width, height) / random.int(8, 16));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let colour: Rgb;
      switch (plan.pattern) {
        case "gradient":
          colour = mix(first, second, y / Math.max(1, height - 1));
          break;
        case "stripes":
          colour = colours[Math.floor((vertical ? x / width : y / height) * bands) % colours.length]!;
          break;
        case "checker":
          colour = (Math.floor(x / cell) + Math.floor(y / cell)) % 2 === 0 ? first : second;
          break;
        case "circle":
          colour =
            Math.hypot(x - centreX, y - centreY) <= radius ? first : mix(second, third, y / Math.max(1, height - 1));
          break;
        case "rings":
          colour = colours[Math.floor(Math.hypot(x - centreX, y - centreY) / ringWidth) % colours.length]!;
          break;
        case "diagonal":
          colour = colours[Math.floor((x + y) / (cell * 1.5)) % colours.length]!;
          break;
      }
      const at = (y * width + x) * 4;
      raster.data[at] = colour[0];
      raster.data[at + 1] = colour[1];
      raster.data[at + 2] = colour[2];
    }
  }
  return raster;
}

/** Linear mix of two colours, `amount` 0 giving the first. */
export function mix(from: Rgb, to: Rgb, amount: number): Rgb {
  return [
    Math.round(from[0] + (to[0] - from[0]) * amount),
    Math.round(from[1] + (to[1] - from[1]) * amount),
    Math.round(from[2] + (to[2] - from[2]) * amount),
  ];
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const sector = hue / 60;
  const second = chroma * (1 - Math.abs((sector % 2) - 1));
  const [red, green, blue] =
    sector < 1
      ? [chroma, second, 0]
      : sector < 2
        ? [second, chroma, 0]
        : sector < 3
          ? [0, chroma, second]
          : sector < 4
            ? [0, second, chroma]
            : sector < 5
              ? [second, 0, chroma]
              : [chroma, 0, second];
  const offset = lightness - chroma / 2;
  return [Math.round((red + offset) * 255), Math.round((green + offset) * 255), Math.round((blue + offset) * 255)];
}
