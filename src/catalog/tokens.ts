import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { ParameterError } from "../errors.js";
import { mp3DurationS, mp4DurationS, wavDurationS } from "../media/probe.js";
import { asciiBytes, asciiPieceEnd } from "./ascii-pieces.js";
import { PieceCache } from "./piece-cache.js";

// One tokenizer and one set of media rules for the whole project: the local gateway bills with
// them and the client estimates with them, so an estimate is a true upper bound of the bill.

/** Audio is billed at about 1900 prompt tokens per minute (spec, section 8). */
export const AUDIO_TOKENS_PER_MINUTE = 1900;
/** Video is billed at "several hundred tokens per second" (spec); we use 300. */
export const VIDEO_TOKENS_PER_SECOND = 300;
const IMAGE_BASE_TOKENS = 85;
const IMAGE_TILE_TOKENS = 170;
/** An image of unknown size (a link) is counted as the largest image: 2048x768 after scaling. */
export const MAX_IMAGE_TOKENS = IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * 8;

let encoder: Tiktoken | undefined;
let pattern: RegExp | undefined;
// The tokenizer splits text into pieces (words, numbers, punctuation runs) and encodes each on
// its own, so a piece's count can be remembered: js-tiktoken's encode is slow per call, and the
// local gateway counts every prompt and reply.
const pieceTokens = new PieceCache();
const MAX_CACHED_PIECE_LENGTH = 64;

/** Tokens in a text, by the o200k_base BPE tokenizer; special-token text counts as plain text. */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  const bytes = asciiBytes(text);
  if (bytes) return countAsciiTokens(text, bytes);
  // Non-capturing groups and `match` (strings, not match objects) split the same pieces twice as fast.
  pattern ??= new RegExp(o200kBase.pat_str.replaceAll("('s|", "(?:'s|"), "gu");
  let count = 0;
  for (const piece of text.match(pattern) ?? []) count += countPieceTokens(piece);
  return count;
}

// ASCII text is split and looked up on its bytes: a string is made only of a piece not remembered yet.
function countAsciiTokens(text: string, bytes: Uint8Array): number {
  let count = 0;
  for (let start = 0; start < text.length; ) {
    const end = asciiPieceEnd(bytes, text.length, start);
    const tokens = end - start > MAX_CACHED_PIECE_LENGTH ? -1 : pieceTokens.findCodes(bytes, start, end);
    count += tokens >= 0 ? tokens : countPieceTokens(text.slice(start, end));
    start = end;
  }
  return count;
}

// js-tiktoken's byte-pair merge is quadratic in a piece's length, and a run of one letter is a
// single piece: 4,000 "x" took 3 s. Long pieces are counted in 32-character slices instead, a
// rule the gateway and the client share, so counts stay consistent (and near the true count).
const SLICE = 32;

function countPieceTokens(piece: string): number {
  if (piece.length > MAX_CACHED_PIECE_LENGTH) {
    let tokens = 0;
    for (let start = 0; start < piece.length; ) {
      let end = Math.min(start + SLICE, piece.length);
      // Never split a surrogate pair.
      if (end < piece.length && /[\uD800-\uDBFF]/.test(piece[end - 1]!)) end++;
      tokens += countPieceTokens(piece.slice(start, end));
      start = end;
    }
    return tokens;
  }
  const tokens = pieceTokens.find(piece, 0, piece.length);
  return tokens >= 0 ? tokens : encodePiece(piece);
}

function encodePiece(piece: string): number {
  encoder ??= new Tiktoken(o200kBase);
  const tokens = encoder.encode(piece, [], []).length;
  pieceTokens.add(piece, tokens);
  return tokens;
}

/** Prompt tokens of an image: 85 plus 170 per 512-pixel tile after fitting 2048 and 768 sides. */
export function imageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(w, h);
  if (shortest > 768) {
    w *= 768 / shortest;
    h *= 768 / shortest;
  }
  return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Prompt tokens of audio of a given length. */
export function audioTokens(seconds: number): number {
  return Math.ceil((seconds * AUDIO_TOKENS_PER_MINUTE) / 60);
}

/** Prompt tokens of video of a given length. */
export function videoTokens(seconds: number): number {
  return Math.ceil(seconds * VIDEO_TOKENS_PER_SECOND);
}

/** Seconds of an audio clip in a supported format; a ParameterError when it cannot be decoded. */
export function audioDurationS(data: Buffer, format: string): number {
  const seconds = format === "wav" ? wavDurationS(data) : format === "mp3" ? mp3DurationS(data) : undefined;
  if (seconds === undefined) {
    throw new ParameterError(
      `input_audio could not be decoded as ${format}. Send a valid mp3 or wav file (convert other formats first).`,
    );
  }
  return seconds;
}

/** Seconds of a video data URI (MP4/QuickTime); a ParameterError when it cannot be decoded. */
export function videoDurationS(data: Buffer): number {
  const seconds = mp4DurationS(data);
  if (seconds === undefined) {
    throw new ParameterError("The video could not be decoded. Send an MP4 (H.264) file as a data URI.");
  }
  return seconds;
}

/** True when a URL is a data URI carrying video. */
export function isVideoUrl(url: string): boolean {
  return /^data:video\//i.test(url);
}
