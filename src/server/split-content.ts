// How a reply is cut into streamed deltas: a few tokens per content delta, like a real model;
// long runs without spaces (a data URI of a generated image) in larger pieces, so an image does
// not cost thousands of events. Pieces never split a surrogate pair.

const SHORT_RUN = 16;
const LONG_RUN = 512;
const LONG_PIECE = 8192;
const WORDS_PER_DELTA = 3;
const DELTA_CHARS = 24;
const ARGUMENT_PIECE = 12;

/** Content split into stream deltas; joined they give back the text exactly. */
export function splitContent(text: string): string[] {
  const deltas: string[] = [];
  let current = "";
  let words = 0;
  for (const segment of text.match(/\s*\S+|\s+/g) ?? []) {
    const size = segment.length > LONG_RUN ? LONG_PIECE : segment.length > SHORT_RUN ? SHORT_RUN : segment.length;
    for (const piece of pieces(segment, size)) {
      current += piece;
      words++;
      if (words >= WORDS_PER_DELTA || current.length >= DELTA_CHARS) {
        deltas.push(current);
        current = "";
        words = 0;
      }
    }
  }
  if (current !== "") deltas.push(current);
  return deltas;
}

/** Tool-call arguments split into small fragments; joined they give back the text exactly. */
export function splitArguments(text: string): string[] {
  return pieces(text, ARGUMENT_PIECE);
}

function pieces(text: string, size: number): string[] {
  if (text.length <= size) return text === "" ? [] : [text];
  const result: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    result.push(text.slice(start, end));
    start = end;
  }
  return result;
}
