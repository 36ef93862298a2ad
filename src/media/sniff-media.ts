import { crc32 } from "node:zlib";
import { probeImage } from "./probe.js";

/** What a file's first bytes say it is, or why it is not what it claims. */
export type Sniffed =
  | { readonly kind: "image" | "audio"; readonly format: string }
  | { readonly kind: "unknown"; readonly problem: string };

/**
 * Reads the magic bytes of an image (PNG, JPEG, GIF, WebP) or audio (MP3, WAV) file. A PNG's
 * IHDR chunk must be whole and its CRC right, so a cut or corrupt PNG is refused, not billed.
 */
export function sniffMedia(bytes: Uint8Array): Sniffed {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length >= 8 && view.readUInt32BE(0) === 0x89504e47 && view.readUInt32BE(4) === 0x0d0a1a0a) {
    return validPngHeader(view)
      ? { kind: "image", format: "png" }
      : {
          kind: "unknown",
          problem: "a PNG signature with a damaged header (its IHDR chunk is cut or its CRC is wrong)",
        };
  }
  const image = probeImage(view);
  if (image !== undefined && image.format !== "png") return { kind: "image", format: image.format };
  if (view.length >= 12 && view.toString("latin1", 0, 4) === "RIFF" && view.toString("latin1", 8, 12) === "WAVE")
    return { kind: "audio", format: "wav" };
  if (view.length >= 3 && view.toString("latin1", 0, 3) === "ID3") return { kind: "audio", format: "mp3" };
  // An MPEG audio frame header: 11 sync bits, then a layer that is not "reserved".
  if (view.length >= 2 && view[0] === 0xff && (view[1]! & 0xe0) === 0xe0 && (view[1]! & 0x06) !== 0)
    return { kind: "audio", format: "mp3" };
  const head = view.toString("latin1", 0, Math.min(view.length, 256)).trimStart().toLowerCase();
  if (head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg")))
    return { kind: "unknown", problem: "an SVG drawing (text), which models do not take as an image" };
  return {
    kind: "unknown",
    problem: view.length === 0 ? "empty" : "not a PNG, JPEG, GIF, WebP, MP3 or WAV file by its first bytes",
  };
}

/** How many leading bytes sniffMedia needs. */
export const SNIFF_BYTES = 512;

function validPngHeader(view: Buffer): boolean {
  if (view.length < 33 || view.readUInt32BE(8) !== 13 || view.toString("latin1", 12, 16) !== "IHDR") return false;
  return crc32(view.subarray(12, 29)) === view.readUInt32BE(29);
}
