// How a reply is cut into streamed deltas: a few tokens per content delta, like a real model;
// long runs without spaces (a data URI of a generated image) in larger pieces, so an image does
// not cost thousands of events. Pieces never split a surrogate pair.
import { isSpace } from "./simulate/is-space.js";

const SHORT_RUN = 16;
const LONG_RUN = 512;
const LONG_PIECE = 8192;
const WORDS_PER_DELTA = 3;
const DELTA_CHARS = 24;
const ARGUMENT_PIECE = 12;

/** Content split into stream deltas; joined they give back the text exactly. */
export function splitContent(text: string): string[] {
  // Deltas are consecutive slices of the text, so positions are tracked instead of building
  // segment, piece and delta strings: every streamed reply is split.
  const deltas: string[] = [];
  let deltaStart = 0;
  let words = 0;
  for (let segmentStart = 0; segmentStart < text.length; ) {
    // A segment is what `/\s*\S+|\s+/g` matches: spaces and the word after them, or trailing spaces.
    const segmentEnd = endOfSegment(text, segmentStart);
    const length = segmentEnd - segmentStart;
    const size = length > LONG_RUN ? LONG_PIECE : Math.min(length, SHORT_RUN);
    for (let pieceStart = segmentStart; pieceStart < segmentEnd; ) {
      const pieceEnd = endOfPiece(text, pieceStart, segmentEnd, size);
      words++;
      if (words >= WORDS_PER_DELTA || pieceEnd - deltaStart >= DELTA_CHARS) {
        deltas.push(text.slice(deltaStart, pieceEnd));
        deltaStart = pieceEnd;
        words = 0;
      }
      pieceStart = pieceEnd;
    }
    segmentStart = segmentEnd;
  }
  if (deltaStart < text.length) deltas.push(text.slice(deltaStart));
  return deltas;
}

/** Tool-call arguments split into small fragments; joined they give back the text exactly. */
export function splitArguments(text: string): string[] {
  const fragments: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = endOfPiece(text, start, text.length, ARGUMENT_PIECE);
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}

function endOfSegment(text: string, start: number): number {
  let end = start;
  while (end < text.length && isSpace(text.charCodeAt(end))) end++;
  while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
  return end;
}

// At most `size` characters from `start`, one fewer rather than end between a surrogate pair.
function endOfPiece(text: string, start: number, limit: number, size: number): number {
  const end = Math.min(start + size, limit);
  const last = text.charCodeAt(end - 1);
  return end < limit && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}
