// Slots of the table: a power of two, so a hash picks its slot with a mask, and enough that the
// table is never more than 40% full.
const SLOTS = 1 << 18;
const MASK = SLOTS - 1;
const MAX_ENTRIES = 100_000;

/**
 * Token counts of tokenizer pieces by their text, looked up by a stretch of a longer text: the
 * gateway and the client count every prompt and reply piece by piece, and a Map needed a string
 * made of each piece (and its hash computed) to look it up. An open-addressing table of a hash
 * computed in place, with the pieces' characters kept in one array (no strings for the garbage
 * collector to trace). Full, it keeps what it has and remembers nothing more.
 */
export class PieceCache {
  readonly #hashes = new Int32Array(SLOTS);
  /** Where each slot's piece starts in `#characters`. */
  readonly #starts = new Int32Array(SLOTS);
  /** 0 marks an empty slot: pieces are never empty. */
  readonly #lengths = new Int32Array(SLOTS);
  readonly #tokens = new Int32Array(SLOTS);
  #characters = new Uint16Array(1 << 16);
  #used = 0;
  #size = 0;

  /** The tokens of `text.slice(start, end)` if remembered, else -1. */
  find(text: string, start: number, end: number): number {
    const hash = hashOf(text, start, end);
    const length = end - start;
    for (let slot = hash & MASK; ; slot = (slot + 1) & MASK) {
      const stored = this.#lengths[slot]!;
      if (stored === 0) return -1;
      if (stored === length && this.#hashes[slot] === hash && this.#holds(this.#starts[slot]!, text, start, length))
        return this.#tokens[slot]!;
    }
  }

  /** The tokens of the piece whose characters are `codes[start]` up to `codes[end]` (ASCII bytes), if remembered, else -1. */
  findCodes(codes: Uint8Array, start: number, end: number): number {
    let hash = FNV_OFFSET;
    for (let index = start; index < end; index++) hash = Math.imul(hash ^ codes[index]!, FNV_PRIME);
    const length = end - start;
    for (let slot = hash & MASK; ; slot = (slot + 1) & MASK) {
      const stored = this.#lengths[slot]!;
      if (stored === 0) return -1;
      if (
        stored === length &&
        this.#hashes[slot] === hash &&
        this.#holdsCodes(this.#starts[slot]!, codes, start, length)
      )
        return this.#tokens[slot]!;
    }
  }

  /** Remembers the tokens of a piece not remembered yet, unless the table is full. */
  add(piece: string, tokens: number): void {
    const length = piece.length;
    if (this.#size >= MAX_ENTRIES || length === 0) return;
    const hash = hashOf(piece, 0, length);
    let slot = hash & MASK;
    while (this.#lengths[slot] !== 0) slot = (slot + 1) & MASK;
    if (this.#used + length > this.#characters.length) {
      const grown = new Uint16Array(Math.max(2 * this.#characters.length, this.#used + length));
      grown.set(this.#characters);
      this.#characters = grown;
    }
    for (let index = 0; index < length; index++) this.#characters[this.#used + index] = piece.charCodeAt(index);
    this.#hashes[slot] = hash;
    this.#starts[slot] = this.#used;
    this.#lengths[slot] = length;
    this.#tokens[slot] = tokens;
    this.#used += length;
    this.#size++;
  }

  #holdsCodes(at: number, codes: Uint8Array, start: number, length: number): boolean {
    const characters = this.#characters;
    for (let index = 0; index < length; index++) if (characters[at + index] !== codes[start + index]) return false;
    return true;
  }

  #holds(at: number, text: string, start: number, length: number): boolean {
    const characters = this.#characters;
    for (let index = 0; index < length; index++)
      if (characters[at + index] !== text.charCodeAt(start + index)) return false;
    return true;
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

// FNV-1a over the UTF-16 code units.
function hashOf(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  return hash;
}
