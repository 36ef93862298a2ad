import jpeg from "jpeg-js";
import { decodePng } from "./png.js";
import { probeImage, type ImageFacts } from "./probe.js";
import type { Raster } from "./raster.js";

/** An image's header facts, and its pixels when the format is one we decode (PNG, JPEG). */
export interface DecodedImage {
  readonly facts: ImageFacts;
  /** Undefined for GIF and WebP, whose pixels we do not decode. */
  readonly raster?: Raster;
}

/** Reads an image's size and format, and decodes PNG and JPEG pixels; undefined when not an image. */
export function decodeImage(bytes: Uint8Array): DecodedImage | undefined {
  const facts = probeImage(bytes);
  if (!facts) return undefined;
  if (facts.format === "png") {
    const raster = decodePng(bytes);
    return raster ? { facts, raster } : { facts };
  }
  if (facts.format === "jpeg") {
    try {
      const decoded = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: 64,
        maxMemoryUsageInMB: 256,
      });
      return { facts, raster: { width: decoded.width, height: decoded.height, data: decoded.data } };
    } catch {
      return { facts };
    }
  }
  return { facts };
}
