// Media files built byte by byte in test code, so each test knows exactly what it sent.
import { encodePng } from "../src/media/png.js";
import { createRaster, type Raster } from "../src/media/raster.js";
import { encodeWav } from "../src/media/wav.js";

/** A mono 16-bit WAV of a sine tone (amplitude 0..1 of full scale). */
export function sineWav(options: { hz: number; seconds: number; sampleRate?: number; amplitude?: number }): Buffer {
  const sampleRate = options.sampleRate ?? 16_000;
  const amplitude = options.amplitude ?? 0.5;
  const samples = new Int16Array(Math.round(options.seconds * sampleRate));
  for (let index = 0; index < samples.length; index++) {
    samples[index] = Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * options.hz * index) / sampleRate));
  }
  return encodeWav(samples, { sampleRate });
}

/** A WAV with any sample format, written by hand (8/16/24/32-bit PCM or 32-bit float), interleaved channels. */
export function rawWav(options: {
  sampleRate: number;
  channels: number;
  bits: number;
  float?: boolean;
  samples: number[];
}): Buffer {
  const width = options.bits / 8;
  const data = Buffer.alloc(options.samples.length * width);
  options.samples.forEach((value, index) => {
    const at = index * width;
    if (options.float) data.writeFloatLE(value, at);
    else if (options.bits === 8) data[at] = Math.round(value * 127) + 128;
    else if (options.bits === 16) data.writeInt16LE(Math.round(value * 32767), at);
    else if (options.bits === 24) data.writeIntLE(Math.round(value * 8388607), at, 3);
    else data.writeInt32LE(Math.round(value * 2147483647), at);
  });
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(options.float ? 3 : 1, 20);
  header.writeUInt16LE(options.channels, 22);
  header.writeUInt32LE(options.sampleRate, 24);
  header.writeUInt32LE(options.sampleRate * options.channels * width, 28);
  header.writeUInt16LE(options.channels * width, 32);
  header.writeUInt16LE(options.bits, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/**
 * An MP3 of `frames` MPEG-1 layer III frames (44.1 kHz, the given bitrate), silent payload, with an
 * optional ID3v2 tag in front. Each frame lasts 1152 / 44100 s.
 */
export function silentMp3(options: {
  frames: number;
  kbps?: number | number[];
  mono?: boolean;
  id3?: boolean;
}): Buffer {
  const rates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
  const parts: Buffer[] = [];
  if (options.id3) {
    const tag = Buffer.alloc(10 + 20);
    tag.write("ID3", 0, "latin1");
    tag[3] = 4;
    tag[9] = 20;
    parts.push(tag);
  }
  for (let frame = 0; frame < options.frames; frame++) {
    const kbps = Array.isArray(options.kbps) ? options.kbps[frame % options.kbps.length]! : (options.kbps ?? 128);
    const index = rates.indexOf(kbps);
    // sync 11 bits, MPEG-1 (11), layer III (01), no CRC (1); bitrate index, 44.1 kHz (00), no padding.
    const header =
      (0xffe00000 | (3 << 19) | (1 << 17) | (1 << 16) | (index << 12) | ((options.mono ? 3 : 0) << 6)) >>> 0;
    const size = Math.floor((144 * kbps * 1000) / 44100);
    const bytes = Buffer.alloc(size);
    bytes.writeUInt32BE(header, 0);
    parts.push(bytes);
  }
  return Buffer.concat(parts);
}

function box(type: string, ...children: Buffer[]): Buffer {
  const body = Buffer.concat(children);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
}

/** A minimal MP4: ftyp, and moov with mvhd (duration), a video trak (tkhd size, hdlr vide, stsd avc1) and optionally an audio trak. */
export function minimalMp4(options: { seconds: number; width: number; height: number; audio?: boolean }): Buffer {
  const timescale = 1000;
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(timescale, 12);
  mvhd.writeUInt32BE(Math.round(options.seconds * timescale), 16);
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(options.width << 16, 76);
  tkhd.writeUInt32BE(options.height << 16, 80);
  const track = (handler: string, codec: string) => {
    const hdlr = Buffer.alloc(25);
    hdlr.write(handler, 8, "latin1");
    const entry = Buffer.alloc(16);
    entry.writeUInt32BE(16, 0);
    entry.write(codec, 4, "latin1");
    const stsdHead = Buffer.alloc(8);
    stsdHead.writeUInt32BE(1, 4);
    return box(
      "trak",
      box("tkhd", handler === "vide" ? tkhd : Buffer.alloc(84)),
      box("mdia", box("hdlr", hdlr), box("minf", box("stbl", box("stsd", stsdHead, entry)))),
    );
  };
  const tracks = [track("vide", "avc1"), ...(options.audio ? [track("soun", "mp4a")] : [])];
  return Buffer.concat([
    box("ftyp", Buffer.from("isom\0\0\0\0isomavc1", "latin1")),
    box("moov", box("mvhd", mvhd), ...tracks),
    box("mdat"),
  ]);
}

/** A raster split into vertical bands of solid colours, left to right, each band's share of the width given. */
export function bandsRaster(
  width: number,
  height: number,
  bands: Array<{ rgb: [number, number, number]; share: number }>,
): Raster {
  const raster = createRaster(width, height);
  for (let x = 0; x < width; x++) {
    let edge = 0;
    const band = bands.find((candidate) => (edge += candidate.share) * width > x) ?? bands.at(-1)!;
    for (let y = 0; y < height; y++) raster.data.set([...band.rgb, 255], (y * width + x) * 4);
  }
  return raster;
}

/** A data URI of a PNG made from a raster. */
export function pngDataUri(raster: Raster): string {
  return `data:image/png;base64,${encodePng(raster).toString("base64")}`;
}
