import { probeMp3 } from "./mp3.js";
import { probeMp4 } from "./mp4.js";

/** Facts read from an image's header. */
export interface ImageFacts {
  readonly format: "png" | "jpeg" | "gif" | "webp";
  readonly width: number;
  readonly height: number;
}

/** Width, height and format of a PNG, JPEG, GIF or WebP; undefined for anything else. */
export function probeImage(bytes: Uint8Array): ImageFacts | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length >= 24 && view.readUInt32BE(0) === 0x89504e47) {
    return { format: "png", width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
  }
  if (view.length >= 10 && view.toString("latin1", 0, 4) === "GIF8") {
    return { format: "gif", width: view.readUInt16LE(6), height: view.readUInt16LE(8) };
  }
  if (view.length >= 30 && view.toString("latin1", 0, 4) === "RIFF" && view.toString("latin1", 8, 12) === "WEBP") {
    return probeWebp(view);
  }
  if (view.length >= 4 && view[0] === 0xff && view[1] === 0xd8) return probeJpeg(view);
  return undefined;
}

function probeWebp(view: Buffer): ImageFacts | undefined {
  const chunk = view.toString("latin1", 12, 16);
  if (chunk === "VP8X") {
    return { format: "webp", width: 1 + view.readUIntLE(24, 3), height: 1 + view.readUIntLE(27, 3) };
  }
  if (chunk === "VP8 ") {
    return { format: "webp", width: view.readUInt16LE(26) & 0x3fff, height: view.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === "VP8L") {
    const bits = view.readUInt32LE(21);
    return { format: "webp", width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return undefined;
}

function probeJpeg(view: Buffer): ImageFacts | undefined {
  let offset = 2;
  while (offset + 9 < view.length) {
    if (view[offset] !== 0xff) return undefined;
    const marker = view[offset + 1]!;
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { format: "jpeg", height: view.readUInt16BE(offset + 5), width: view.readUInt16BE(offset + 7) };
    }
    offset += 2 + view.readUInt16BE(offset + 2);
  }
  return undefined;
}

/** Duration of a WAV (PCM or any RIFF/WAVE with a `fmt ` byte rate) in seconds. */
export function wavDurationS(bytes: Uint8Array): number | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 12 || view.toString("latin1", 0, 4) !== "RIFF" || view.toString("latin1", 8, 12) !== "WAVE") {
    return undefined;
  }
  let byteRate = 0;
  let offset = 12;
  while (offset + 8 <= view.length) {
    const id = view.toString("latin1", offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    if (id === "fmt " && offset + 16 <= view.length) byteRate = view.readUInt32LE(offset + 16);
    if (id === "data") {
      if (byteRate === 0) return undefined;
      // A streamed WAV may say 0 or 0xFFFFFFFF; the bytes present are then the truth.
      const available = view.length - offset - 8;
      const dataSize = size === 0 || size === 0xffffffff ? available : Math.min(size, available);
      return dataSize / byteRate;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

/** Duration of an MP3 (MPEG audio layer III) in seconds, by walking its frame headers. */
export function mp3DurationS(bytes: Uint8Array): number | undefined {
  return probeMp3(bytes)?.seconds;
}

/** Duration of an MP4/QuickTime file from its `moov/mvhd` box, in seconds. */
export function mp4DurationS(bytes: Uint8Array): number | undefined {
  return probeMp4(bytes)?.seconds;
}

/** A decoded `data:` URI. */
export interface DataUri {
  readonly mime: string;
  readonly bytes: Buffer;
}

/** Decodes a base64 `data:` URI; undefined when the string is not one. */
export function parseDataUri(uri: string): DataUri | undefined {
  const match = /^data:([^;,]+)((?:;[^;,]+)*?);base64,/i.exec(uri);
  if (!match) return undefined;
  return { mime: match[1]!.toLowerCase(), bytes: Buffer.from(uri.slice(match[0].length), "base64") };
}
