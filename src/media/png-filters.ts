// The five PNG row filters (PNG spec, section 9). `bpp` is bytes per complete pixel, at least 1.

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

/** Reverses filter `type` on `row` in place, given the previous reconstructed row (zeros for the first). */
export function unfilterRow(type: number, row: Uint8Array, previous: Uint8Array, bpp: number): boolean {
  const length = row.length;
  switch (type) {
    case 0:
      return true;
    case 1:
      for (let i = bpp; i < length; i++) row[i] = (row[i]! + row[i - bpp]!) & 0xff;
      return true;
    case 2:
      for (let i = 0; i < length; i++) row[i] = (row[i]! + previous[i]!) & 0xff;
      return true;
    case 3:
      for (let i = 0; i < length; i++) {
        const left = i >= bpp ? row[i - bpp]! : 0;
        row[i] = (row[i]! + ((left + previous[i]!) >> 1)) & 0xff;
      }
      return true;
    case 4:
      for (let i = 0; i < length; i++) {
        const left = i >= bpp ? row[i - bpp]! : 0;
        const upLeft = i >= bpp ? previous[i - bpp]! : 0;
        row[i] = (row[i]! + paeth(left, previous[i]!, upLeft)) & 0xff;
      }
      return true;
    default:
      return false;
  }
}

/** Writes `raw` filtered with `type` into `out` (same length). */
export function filterRow(type: number, raw: Uint8Array, previous: Uint8Array, bpp: number, out: Uint8Array): void {
  for (let i = 0; i < raw.length; i++) {
    const left = i >= bpp ? raw[i - bpp]! : 0;
    const up = previous[i]!;
    const upLeft = i >= bpp ? previous[i - bpp]! : 0;
    let predictor = 0;
    if (type === 1) predictor = left;
    else if (type === 2) predictor = up;
    else if (type === 3) predictor = (left + up) >> 1;
    else if (type === 4) predictor = paeth(left, up, upLeft);
    out[i] = (raw[i]! - predictor) & 0xff;
  }
}

/** Filters a row with whichever filter gives the smallest sum of signed residuals (the spec's heuristic). */
export function filterRowAdaptive(raw: Uint8Array, previous: Uint8Array, bpp: number, scratch: Uint8Array): number {
  let bestType = 0;
  let bestScore = Number.POSITIVE_INFINITY;
  const best = new Uint8Array(raw.length);
  for (let type = 0; type <= 4; type++) {
    filterRow(type, raw, previous, bpp, scratch);
    let score = 0;
    for (let i = 0; i < scratch.length && score < bestScore; i++) {
      const value = scratch[i]!;
      score += value < 128 ? value : 256 - value;
    }
    if (score < bestScore) {
      bestScore = score;
      bestType = type;
      best.set(scratch);
    }
  }
  scratch.set(best);
  return bestType;
}
