/** Facts read from an MP4/QuickTime file's `moov` box. */
export interface Mp4Facts {
  readonly seconds: number;
  /** Frame size of the first video track (from `tkhd`), when there is one. */
  readonly width?: number;
  readonly height?: number;
  /** Sample entry type of the first video track, e.g. `avc1`. */
  readonly videoCodec?: string;
  /** Sample entry type of the first audio track, e.g. `mp4a`. */
  readonly audioCodec?: string;
}

interface Box {
  readonly start: number;
  readonly end: number;
}

/** Duration (`mvhd`), frame size and codecs of an MP4/QuickTime file; undefined without `moov/mvhd`. */
export function probeMp4(bytes: Uint8Array): Mp4Facts | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const moov = findBox(view, { start: 0, end: view.length }, "moov");
  const mvhd = moov && findBox(view, moov, "mvhd");
  if (!mvhd || mvhd.start + 32 > view.length) return undefined;
  const version = view[mvhd.start]!;
  const timescale = view.readUInt32BE(mvhd.start + (version === 1 ? 20 : 12));
  const duration = version === 1 ? Number(view.readBigUInt64BE(mvhd.start + 24)) : view.readUInt32BE(mvhd.start + 16);
  if (timescale === 0) return undefined;
  let facts: { -readonly [K in keyof Mp4Facts]: Mp4Facts[K] } = { seconds: duration / timescale };
  for (const trak of allBoxes(view, moov, "trak")) {
    const handler = path(view, trak, ["mdia", "hdlr"]);
    const kind =
      handler && handler.start + 12 <= view.length
        ? view.toString("latin1", handler.start + 8, handler.start + 12)
        : "";
    const stsd = path(view, trak, ["mdia", "minf", "stbl", "stsd"]);
    const codec =
      stsd && stsd.start + 16 <= view.length ? view.toString("latin1", stsd.start + 12, stsd.start + 16) : undefined;
    if (kind === "vide" && facts.videoCodec === undefined) {
      const tkhd = findBox(view, trak, "tkhd");
      facts = { ...facts, videoCodec: codec, ...(tkhd ? frameSize(view, tkhd) : {}) };
    } else if (kind === "soun" && facts.audioCodec === undefined) {
      facts = { ...facts, audioCodec: codec };
    }
  }
  return facts;
}

function frameSize(view: Buffer, tkhd: Box): { width: number; height: number } | undefined {
  // Width and height are the last two 16.16 fixed-point fields of tkhd; their offset depends on the version.
  const at = tkhd.start + (view[tkhd.start] === 1 ? 88 : 76);
  if (at + 8 > tkhd.end) return undefined;
  return { width: view.readUInt32BE(at) >>> 16, height: view.readUInt32BE(at + 4) >>> 16 };
}

function path(view: Buffer, from: Box, types: readonly string[]): Box | undefined {
  let box: Box | undefined = from;
  for (const type of types) box = box && findBox(view, box, type);
  return box;
}

function allBoxes(view: Buffer, within: Box, type: string): Box[] {
  const found: Box[] = [];
  let from = within.start;
  for (let box = findBox(view, { start: from, end: within.end }, type); box; ) {
    found.push(box);
    from = box.end;
    box = findBox(view, { start: from, end: within.end }, type);
  }
  return found;
}

/** The body of the first box of `type` directly inside `within`. */
export function findBox(view: Buffer, within: Box, type: string): Box | undefined {
  let offset = within.start;
  while (offset + 8 <= within.end) {
    let size = view.readUInt32BE(offset);
    let header = 8;
    if (size === 1 && offset + 16 <= within.end) {
      size = Number(view.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = within.end - offset;
    }
    if (size < header) return undefined;
    if (view.toString("latin1", offset + 4, offset + 8) === type) {
      return { start: offset + header, end: Math.min(offset + size, within.end) };
    }
    offset += size;
  }
  return undefined;
}
