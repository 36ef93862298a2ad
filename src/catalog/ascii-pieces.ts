// The o200k_base tokenizer's split pattern, hand-run over ASCII text. The pattern is a large Unicode
// regex, and splitting a prompt or a reply with it (and making a string of every piece) cost more
// than looking the pieces' token counts up; on ASCII text its classes reduce to a few ranges, and
// the text's bytes (TextEncoder.encodeInto) are scanned faster than its characters. Text with any
// other character is split by the pattern itself.

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** Space, tab, vertical tab, form feed: white space that is not a line break. */
const BLANK = 4;
const BREAK = 5;
/** Punctuation, symbols and control characters: neither white space, letter nor digit. */
const MARK = 6;
/** Past the end of the text. */
const NONE = 0;

const SPACE = 0x20;
const APOSTROPHE = 0x27;
const SLASH = 0x2f;

const CLASSES = new Uint8Array(128).fill(MARK);
for (let code = 0x41; code <= 0x5a; code++) CLASSES[code] = UPPER;
for (let code = 0x61; code <= 0x7a; code++) CLASSES[code] = LOWER;
for (let code = 0x30; code <= 0x39; code++) CLASSES[code] = DIGIT;
for (const code of [0x09, 0x0b, 0x0c, SPACE]) CLASSES[code] = BLANK;
for (const code of [0x0a, 0x0d]) CLASSES[code] = BREAK;

const encoder = new TextEncoder();
let buffer = new Uint8Array(4096);
// Longer texts are split by the pattern rather than held in a buffer their size.
const MAX_BUFFER = 1 << 20;

/**
 * The bytes of a text that is all ASCII, in a buffer reused by the next call (valid up to
 * `text.length`); undefined when the text has any other character (or is very long).
 */
export function asciiBytes(text: string): Uint8Array | undefined {
  if (text.length > buffer.length) {
    if (text.length > MAX_BUFFER) return undefined;
    buffer = new Uint8Array(Math.min(MAX_BUFFER, 2 ** Math.ceil(Math.log2(text.length))));
  }
  // UTF-8 gives any other character (or a lone surrogate) more than one byte.
  const { read, written } = encoder.encodeInto(text, buffer);
  return read === text.length && written === text.length ? buffer : undefined;
}

function classAt(bytes: Uint8Array, length: number, index: number): number {
  return index < length ? CLASSES[bytes[index]!]! : NONE;
}

/**
 * Where the tokenizer piece starting at `start` ends, in ASCII text of `length` bytes. The
 * pattern's alternatives, in order: a word (capitals, then small letters) with an optional leading
 * blank or mark and an English contraction; up to three digits; a run of marks with an optional
 * leading space and trailing line breaks or slashes; white space up to its last line break; white
 * space but its last character when more text follows; any other white space.
 */
export function asciiPieceEnd(bytes: Uint8Array, length: number, start: number): number {
  const first = classAt(bytes, length, start);
  const second = classAt(bytes, length, start + 1);
  let end = (first === BLANK || first === MARK) && (second === UPPER || second === LOWER) ? start + 1 : start;
  let kind = end === start ? first : second;
  if (kind === UPPER || kind === LOWER) {
    while (kind === UPPER) kind = classAt(bytes, length, ++end);
    while (kind === LOWER) kind = classAt(bytes, length, ++end);
    return end + contractionLength(bytes, length, end);
  }
  if (first === DIGIT) {
    end = start + 1;
    while (end < start + 3 && classAt(bytes, length, end) === DIGIT) end++;
    return end;
  }
  if (first === MARK || (bytes[start] === SPACE && second === MARK)) {
    end = first === MARK ? start + 1 : start + 2;
    while (classAt(bytes, length, end) === MARK) end++;
    while (classAt(bytes, length, end) === BREAK || (end < length && bytes[end] === SLASH)) end++;
    return end;
  }
  end = start + 1;
  for (kind = second; kind === BLANK || kind === BREAK; kind = classAt(bytes, length, end)) end++;
  for (let index = end - 1; index >= start; index--) if (CLASSES[bytes[index]!] === BREAK) return index + 1;
  return end === length || end - start < 2 ? end : end - 1;
}

// 's 't 'm 'd 're 've 'll, in any case, as the pattern lists them.
function contractionLength(bytes: Uint8Array, length: number, at: number): number {
  if (at + 1 >= length || bytes[at] !== APOSTROPHE) return 0;
  const next = bytes[at + 1]! | 0x20;
  if (next === 0x73 || next === 0x74 || next === 0x6d || next === 0x64) return 2;
  if (at + 2 >= length) return 0;
  const third = bytes[at + 2]! | 0x20;
  if ((next === 0x72 || next === 0x76) && third === 0x65) return 3;
  return next === 0x6c && third === 0x6c ? 3 : 0;
}
