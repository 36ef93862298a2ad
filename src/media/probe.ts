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

const MP3_BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const MP3_RATES = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as const;

/** Duration of an MP3 (MPEG audio layer III) in seconds, by walking its frame headers. */
export function mp3DurationS(bytes: Uint8Array): number | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  if (view.length >= 10 && view.toString("latin1", 0, 3) === "ID3") {
    const size = ((view[6]! & 0x7f) << 21) | ((view[7]! & 0x7f) << 14) | ((view[8]! & 0x7f) << 7) | (view[9]! & 0x7f);
    offset = 10 + size;
  }
  let seconds = 0;
  let frames = 0;
  while (offset + 4 <= view.length) {
    const header = view.readUInt32BE(offset);
    if ((header & 0xffe00000) >>> 0 !== 0xffe00000) {
      if (frames > 0) break;
      offset++;
      continue;
    }
    const version = (header >>> 19) & 3;
    const layer = (header >>> 17) & 3;
    const bitrateIndex = (header >>> 12) & 15;
    const rateIndex = (header >>> 10) & 3;
    const padding = (header >>> 9) & 1;
    if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) {
      if (frames > 0) break;
      offset++;
      continue;
    }
    const sampleRate = MP3_RATES[version as 0 | 2 | 3][rateIndex]!;
    const bitrate = (version === 3 ? MP3_BITRATES_V1_L3 : MP3_BITRATES_V2_L3)[bitrateIndex]! * 1000;
    const samples = version === 3 ? 1152 : 576;
    const frameBytes = Math.floor((samples / 8) * bitrate / sampleRate) + padding;
    seconds += samples / sampleRate;
    frames++;
    offset += frameBytes;
  }
  return frames > 0 ? seconds : undefined;
}

/** Duration of an MP4/QuickTime file from its `moov/mvhd` box, in seconds. */
export function mp4DurationS(bytes: Uint8Array): number | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const moov = findBox(view, 0, view.length, "moov");
  if (!moov) return undefined;
  const mvhd = findBox(view, moov.start, moov.end, "mvhd");
  if (!mvhd || mvhd.start + 32 > view.length) return undefined;
  const version = view[mvhd.start]!;
  if (version === 1) {
    const timescale = view.readUInt32BE(mvhd.start + 20);
    const duration = Number(view.readBigUInt64BE(mvhd.start + 24));
    return timescale > 0 ? duration / timescale : undefined;
  }
  const timescale = view.readUInt32BE(mvhd.start + 12);
  const duration = view.readUInt32BE(mvhd.start + 16);
  return timescale > 0 ? duration / timescale : undefined;
}

function findBox(view: Buffer, from: number, to: number, type: string): { start: number; end: number } | undefined {
  let offset = from;
  while (offset + 8 <= to) {
    let size = view.readUInt32BE(offset);
    let header = 8;
    if (size === 1 && offset + 16 <= to) {
      size = Number(view.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = to - offset;
    }
    if (size < header) return undefined;
    if (view.toString("latin1", offset + 4, offset + 8) === type) {
      return { start: offset + header, end: Math.min(offset + size, to) };
    }
    offset += size;
  }
  return undefined;
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
