/** Decoded pixels: 8-bit RGBA, row after row, top to bottom. */
export interface Raster {
  readonly width: number;
  readonly height: number;
  /** `width * height * 4` bytes: red, green, blue, alpha. */
  readonly data: Uint8Array;
}

/** The largest side we decode or create; bigger images are refused rather than exhausting memory. */
export const MAX_RASTER_SIDE = 8192;

/** A raster of the given size filled with one RGBA colour (opaque black by default). */
export function createRaster(width: number, height: number, fill: readonly number[] = [0, 0, 0, 255]): Raster {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`Expected a positive integer raster size, got ${width}x${height}`);
  }
  if (width > MAX_RASTER_SIDE || height > MAX_RASTER_SIDE) {
    throw new RangeError(`Expected raster sides of at most ${MAX_RASTER_SIDE}, got ${width}x${height}`);
  }
  const data = new Uint8Array(width * height * 4);
  const [red = 0, green = 0, blue = 0, alpha = 255] = fill;
  for (let offset = 0; offset < data.length; offset += 4) {
    data[offset] = red;
    data[offset + 1] = green;
    data[offset + 2] = blue;
    data[offset + 3] = alpha;
  }
  return { width, height, data };
}

/** A copy scaled (nearest neighbour) so that neither side exceeds `maxSide`; the same raster when it fits. */
export function fitRaster(raster: Raster, maxSide: number): Raster {
  const scale = Math.min(1, maxSide / Math.max(raster.width, raster.height));
  if (scale === 1) return raster;
  const width = Math.max(1, Math.round(raster.width * scale));
  const height = Math.max(1, Math.round(raster.height * scale));
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sourceY = Math.min(raster.height - 1, Math.floor(y / scale));
    for (let x = 0; x < width; x++) {
      const sourceX = Math.min(raster.width - 1, Math.floor(x / scale));
      const from = (sourceY * raster.width + sourceX) * 4;
      data.set(raster.data.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return { width, height, data };
}
