/** Facts read from an MP3's frame headers. */
export interface Mp3Facts {
  readonly seconds: number;
  readonly frames: number;
  readonly sampleRate: number;
  /** 1 for mono, 2 for the stereo, joint-stereo and dual-channel modes. */
  readonly channels: number;
  /** Mean bitrate over all frames, in kbit/s. */
  readonly bitrateKbps: number;
  /** True when frames use different bitrates. */
  readonly variableBitrate: boolean;
}

const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as const;

/** Walks an MP3's (MPEG 1, 2 or 2.5 layer III) frames after any ID3v2 tag; undefined when none is found. */
export function probeMp3(bytes: Uint8Array): Mp3Facts | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  if (view.length >= 10 && view.toString("latin1", 0, 3) === "ID3") {
    const size = ((view[6]! & 0x7f) << 21) | ((view[7]! & 0x7f) << 14) | ((view[8]! & 0x7f) << 7) | (view[9]! & 0x7f);
    offset = 10 + size;
  }
  let seconds = 0;
  let frames = 0;
  let bits = 0;
  let sampleRate = 0;
  let channels = 0;
  const bitrates = new Set<number>();
  while (offset + 4 <= view.length) {
    const header = view.readUInt32BE(offset);
    const version = (header >>> 19) & 3;
    const layer = (header >>> 17) & 3;
    const bitrateIndex = (header >>> 12) & 15;
    const rateIndex = (header >>> 10) & 3;
    const valid =
      (header & 0xffe00000) >>> 0 === 0xffe00000 &&
      version !== 1 &&
      layer === 1 &&
      bitrateIndex !== 0 &&
      bitrateIndex !== 15 &&
      rateIndex !== 3;
    if (!valid) {
      // Junk before the first frame is skipped; junk after it (a trailing tag) ends the stream.
      if (frames > 0) break;
      offset++;
      continue;
    }
    const rate = RATES[version as 0 | 2 | 3][rateIndex]!;
    const bitrate = (version === 3 ? BITRATES_V1_L3 : BITRATES_V2_L3)[bitrateIndex]! * 1000;
    const samples = version === 3 ? 1152 : 576;
    const frameSeconds = samples / rate;
    seconds += frameSeconds;
    bits += bitrate * frameSeconds;
    frames++;
    sampleRate = rate;
    channels = ((header >>> 6) & 3) === 3 ? 1 : 2;
    bitrates.add(bitrate);
    offset += Math.floor(((samples / 8) * bitrate) / rate) + ((header >>> 9) & 1);
  }
  if (frames === 0) return undefined;
  return {
    seconds,
    frames,
    sampleRate,
    channels,
    bitrateKbps: Math.round(bits / seconds / 1000),
    variableBitrate: bitrates.size > 1,
  };
}
