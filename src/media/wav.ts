/** A decoded WAV file. */
export interface DecodedWav {
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  /** `pcm` (integer samples) or `float` (IEEE float samples). */
  readonly encoding: "pcm" | "float";
  /** One array per channel, samples scaled to -1..1. */
  readonly channels: readonly Float32Array[];
  readonly seconds: number;
}

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;

/** Encodes mono or interleaved 16-bit PCM samples as a canonical 44-byte-header WAV file. */
export function encodeWav(samples: Int16Array, options: { sampleRate: number; channels?: number }): Buffer {
  const channels = options.channels ?? 1;
  const dataBytes = samples.length * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write("RIFF", 0, "latin1");
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write("WAVEfmt ", 8, "latin1");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(FORMAT_PCM, 20);
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(options.sampleRate, 24);
  out.writeUInt32LE(options.sampleRate * channels * 2, 28);
  out.writeUInt16LE(channels * 2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36, "latin1");
  out.writeUInt32LE(dataBytes, 40);
  for (let index = 0; index < samples.length; index++) out.writeInt16LE(samples[index]!, 44 + index * 2);
  return out;
}

/** Decodes a RIFF/WAVE file with integer PCM (8/16/24/32-bit) or float (32/64-bit) samples; undefined otherwise. */
export function decodeWav(bytes: Uint8Array): DecodedWav | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 12 || view.toString("latin1", 0, 4) !== "RIFF" || view.toString("latin1", 8, 12) !== "WAVE") {
    return undefined;
  }
  let format: { code: number; channels: number; sampleRate: number; bits: number } | undefined;
  for (let offset = 12; offset + 8 <= view.length; ) {
    const id = view.toString("latin1", offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt " && body + 16 <= view.length) {
      let code = view.readUInt16LE(body);
      if (code === FORMAT_EXTENSIBLE && size >= 26 && body + 26 <= view.length) code = view.readUInt16LE(body + 24);
      format = {
        code,
        channels: view.readUInt16LE(body + 2),
        sampleRate: view.readUInt32LE(body + 4),
        bits: view.readUInt16LE(body + 14),
      };
    }
    if (id === "data") {
      if (!format) return undefined;
      // A streamed WAV may say 0 or 0xFFFFFFFF; the bytes present are then the truth.
      const available = view.length - body;
      const length = size === 0 || size === 0xffffffff ? available : Math.min(size, available);
      return readSamples(view.subarray(body, body + length), format);
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}

function readSamples(
  data: Buffer,
  format: { code: number; channels: number; sampleRate: number; bits: number },
): DecodedWav | undefined {
  const { code, channels: channelCount, sampleRate, bits } = format;
  const read = sampleReader(code, bits);
  if (!read || channelCount < 1 || sampleRate < 1) return undefined;
  const width = bits / 8;
  const frames = Math.floor(data.length / (width * channelCount));
  const channels = Array.from({ length: channelCount }, () => new Float32Array(frames));
  for (let frame = 0; frame < frames; frame++) {
    for (let channel = 0; channel < channelCount; channel++) {
      channels[channel]![frame] = read(data, (frame * channelCount + channel) * width);
    }
  }
  return {
    sampleRate,
    bitsPerSample: bits,
    encoding: code === FORMAT_FLOAT ? "float" : "pcm",
    channels,
    seconds: frames / sampleRate,
  };
}

function sampleReader(code: number, bits: number): ((data: Buffer, offset: number) => number) | undefined {
  if (code === FORMAT_FLOAT) {
    if (bits === 32) return (data, offset) => data.readFloatLE(offset);
    if (bits === 64) return (data, offset) => data.readDoubleLE(offset);
    return undefined;
  }
  if (code !== FORMAT_PCM) return undefined;
  switch (bits) {
    // 8-bit WAV is unsigned, every wider depth is signed.
    case 8:
      return (data, offset) => (data[offset]! - 128) / 128;
    case 16:
      return (data, offset) => data.readInt16LE(offset) / 32768;
    case 24:
      return (data, offset) => data.readIntLE(offset, 3) / 8388608;
    case 32:
      return (data, offset) => data.readInt32LE(offset) / 2147483648;
    default:
      return undefined;
  }
}

/** The channels averaged into one. */
export function mixToMono(channels: readonly Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const frames = channels[0]?.length ?? 0;
  const mono = new Float32Array(frames);
  for (const channel of channels) {
    for (let frame = 0; frame < frames; frame++) mono[frame]! += channel[frame]! / channels.length;
  }
  return mono;
}
