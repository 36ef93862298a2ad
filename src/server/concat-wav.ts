/** The format and sample bytes of a PCM WAV. */
interface WavParts {
  readonly format: Buffer;
  readonly data: Buffer;
  readonly byteRate: number;
  readonly blockAlign: number;
}

function wavParts(bytes: Buffer): WavParts {
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "RIFF" || bytes.toString("latin1", 8, 12) !== "WAVE") {
    throw new Error("Not a WAV file.");
  }
  let format: Buffer | undefined;
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const id = bytes.toString("latin1", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = bytes.subarray(offset + 8, Math.min(offset + 8 + size, bytes.length));
    if (id === "fmt ") format = body;
    if (id === "data" && format) {
      return { format, data: body, byteRate: format.readUInt32LE(8), blockAlign: format.readUInt16LE(12) };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error("WAV file without fmt and data chunks.");
}

/**
 * Joins WAV files of the same format into one, optionally keeping only the first `cutS[i]`
 * seconds of part i (a continuation starts where its parent was cut).
 */
export function concatWav(parts: readonly Buffer[], cutS: readonly (number | undefined)[] = []): Buffer {
  const decoded = parts.map(wavParts);
  const first = decoded[0];
  if (!first) throw new Error("Nothing to concatenate.");
  const datas = decoded.map((part, index) => {
    if (!part.format.equals(first.format)) throw new Error("Cannot concatenate WAV files of different formats.");
    const cut = cutS[index];
    if (cut === undefined) return part.data;
    const bytes = Math.floor((cut * part.byteRate) / part.blockAlign) * part.blockAlign;
    return part.data.subarray(0, Math.max(0, Math.min(bytes, part.data.length)));
  });
  const dataBytes = datas.reduce((sum, data) => sum + data.length, 0);
  const header = Buffer.alloc(20);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(4 + 8 + first.format.length + 8 + dataBytes, 4);
  header.write("WAVE", 8, "latin1");
  header.write("fmt ", 12, "latin1");
  header.writeUInt32LE(first.format.length, 16);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write("data", 0, "latin1");
  dataHeader.writeUInt32LE(dataBytes, 4);
  return Buffer.concat([header, first.format, dataHeader, ...datas]);
}
