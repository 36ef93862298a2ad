import { crc32, deflateSync, inflateSync } from "node:zlib";
import { filterRowAdaptive, unfilterRow } from "./png-filters.js";
import { MAX_RASTER_SIDE, type Raster } from "./raster.js";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
// Adam7: x start, y start, x step, y step of each of the seven passes.
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface Header {
  width: number;
  height: number;
  depth: number;
  colorType: number;
  interlaced: boolean;
}

interface Extras {
  palette?: Buffer;
  transparency?: Buffer;
}

/** Encodes RGBA pixels as a PNG (RGB when every pixel is opaque), adaptive row filters, zlib level 6. */
export function encodePng(raster: Raster): Buffer {
  const { width, height, data } = raster;
  let opaque = true;
  for (let offset = 3; offset < data.length && opaque; offset += 4) opaque = data[offset] === 255;
  const channels = opaque ? 3 : 4;
  const rowBytes = width * channels;
  const filtered = Buffer.alloc((rowBytes + 1) * height);
  let previous = new Uint8Array(rowBytes);
  let raw = new Uint8Array(rowBytes);
  const scratch = new Uint8Array(rowBytes);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 4;
      for (let channel = 0; channel < channels; channel++) raw[x * channels + channel] = data[from + channel]!;
    }
    const type = filterRowAdaptive(raw, previous, channels, scratch);
    const at = y * (rowBytes + 1);
    filtered[at] = type;
    filtered.set(scratch, at + 1);
    [previous, raw] = [raw, previous];
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = opaque ? 2 : 6;
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(filtered, { level: 6 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, "latin1");
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

/** Decodes any standard PNG (all colour types and bit depths, Adam7) to RGBA; undefined when malformed. */
export function decodePng(bytes: Uint8Array): Raster | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 8 || !view.subarray(0, 8).equals(SIGNATURE)) return undefined;
  let header: Header | undefined;
  const extras: Extras = {};
  const idat: Buffer[] = [];
  for (let offset = 8; offset + 12 <= view.length; ) {
    const length = view.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (end > view.length) return undefined;
    const type = view.toString("latin1", offset + 4, offset + 8);
    const body = view.subarray(offset + 8, offset + 8 + length);
    if (crc32(view.subarray(offset + 4, offset + 8 + length)) !== view.readUInt32BE(offset + 8 + length))
      return undefined;
    if (type === "IHDR") header = readHeader(body);
    else if (type === "PLTE") extras.palette = body;
    else if (type === "tRNS") extras.transparency = body;
    else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
    offset = end;
  }
  if (!header || idat.length === 0 || (header.colorType === 3 && !extras.palette)) return undefined;
  const bitsPerPixel = CHANNELS[header.colorType]! * header.depth;
  const expected = passes(header).reduce((sum, [w, h]) => sum + h * (1 + Math.ceil((w * bitsPerPixel) / 8)), 0);
  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.concat(idat), { maxOutputLength: Math.max(expected, 1) });
  } catch {
    return undefined;
  }
  if (inflated.length < expected) return undefined;
  const data = new Uint8Array(header.width * header.height * 4);
  // 8-bit RGB(A) without a colour key is most of what clients send: copy bytes instead of sampling.
  const fastPath =
    header.depth === 8 && !extras.transparency
      ? ({ 2: 3, 6: 4 } as Record<number, number>)[header.colorType]
      : undefined;
  let offset = 0;
  for (const [passWidth, passHeight, x0, y0, dx, dy] of passes(header)) {
    const rowBytes = Math.ceil((passWidth * bitsPerPixel) / 8);
    let previous = new Uint8Array(rowBytes);
    for (let y = 0; y < passHeight; y++) {
      const row = new Uint8Array(inflated.subarray(offset + 1, offset + 1 + rowBytes));
      if (!unfilterRow(inflated[offset]!, row, previous, Math.max(1, bitsPerPixel >> 3))) return undefined;
      offset += 1 + rowBytes;
      const rowStart = (y0 + y * dy) * header.width + x0;
      if (fastPath && dx === 1) {
        for (let x = 0; x < passWidth; x++) {
          data.set(row.subarray(x * fastPath, x * fastPath + fastPath), (rowStart + x) * 4);
          if (fastPath === 3) data[(rowStart + x) * 4 + 3] = 255;
        }
      } else {
        for (let x = 0; x < passWidth; x++) writePixel(header, extras, row, x, data, (rowStart + x * dx) * 4);
      }
      previous = row;
    }
  }
  return { width: header.width, height: header.height, data };
}

function readHeader(body: Buffer): Header | undefined {
  if (body.length < 13) return undefined;
  const header = {
    width: body.readUInt32BE(0),
    height: body.readUInt32BE(4),
    depth: body[8]!,
    colorType: body[9]!,
    interlaced: body[12] === 1,
  };
  const valid =
    header.width > 0 &&
    header.height > 0 &&
    header.width <= MAX_RASTER_SIDE &&
    header.height <= MAX_RASTER_SIDE &&
    (DEPTHS[header.colorType]?.includes(header.depth) ?? false) &&
    body[10] === 0 &&
    body[11] === 0 &&
    body[12]! <= 1;
  return valid ? header : undefined;
}

/** Each pass as [width, height, x start, y start, x step, y step]; one pass when not interlaced. */
function passes(header: Header): Array<[number, number, number, number, number, number]> {
  if (!header.interlaced) return [[header.width, header.height, 0, 0, 1, 1]];
  return ADAM7.map(([x0, y0, dx, dy]) => [
    Math.ceil(Math.max(0, header.width - x0) / dx),
    Math.ceil(Math.max(0, header.height - y0) / dy),
    x0,
    y0,
    dx,
    dy,
  ]);
}

/** The `index`th sample of a row, at the header's depth (16-bit samples read whole). */
function sample(row: Uint8Array, index: number, depth: number): number {
  if (depth === 8) return row[index]!;
  if (depth === 16) return (row[index * 2]! << 8) | row[index * 2 + 1]!;
  const bit = index * depth;
  return (row[bit >> 3]! >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
}

function writePixel(header: Header, extras: Extras, row: Uint8Array, x: number, out: Uint8Array, at: number): void {
  const { depth, colorType } = header;
  const channels = CHANNELS[colorType]!;
  const max = (1 << depth) - 1;
  const to8 = (value: number) => (depth === 16 ? value >> 8 : Math.round((value * 255) / max));
  const trns = extras.transparency;
  if (colorType === 3) {
    const index = sample(row, x, depth);
    const palette = extras.palette!;
    out[at] = palette[index * 3] ?? 0;
    out[at + 1] = palette[index * 3 + 1] ?? 0;
    out[at + 2] = palette[index * 3 + 2] ?? 0;
    out[at + 3] = trns?.[index] ?? 255;
    return;
  }
  const values = Array.from({ length: channels }, (_, channel) => sample(row, x * channels + channel, depth));
  const color = colorType === 0 || colorType === 4 ? [values[0]!, values[0]!, values[0]!] : values.slice(0, 3);
  out[at] = to8(color[0]!);
  out[at + 1] = to8(color[1]!);
  out[at + 2] = to8(color[2]!);
  if (colorType === 4 || colorType === 6) out[at + 3] = to8(values[channels - 1]!);
  else if (trns && colorType === 0 && trns.length >= 2) out[at + 3] = values[0] === trns.readUInt16BE(0) ? 0 : 255;
  else if (trns && colorType === 2 && trns.length >= 6) {
    const key = [trns.readUInt16BE(0), trns.readUInt16BE(2), trns.readUInt16BE(4)];
    out[at + 3] = key.every((value, channel) => value === values[channel]) ? 0 : 255;
  } else out[at + 3] = 255;
}
