import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { asciiBytes, asciiPieceEnd } from "../src/catalog/ascii-pieces.js";
import { PieceCache } from "../src/catalog/piece-cache.js";
import { countTextTokens } from "../src/catalog/tokens.js";

const PATTERN = new RegExp(o200kBase.pat_str, "gu");
// Characters where the pattern's alternatives meet: cases, digits, every kind of space, marks, contractions.
const PARTS = [
  "a",
  "B",
  "z",
  "Q",
  "1",
  "42",
  "1234",
  " ",
  "  ",
  "\t",
  "\n",
  "\r\n",
  "\v",
  "\f",
  "'",
  "'s",
  "'LL",
  "'Re",
  "'d",
  "'x",
  "/",
  "!?",
  "(",
  "\u0000",
  "\u007f",
  "-",
  "you",
];
const MORE_PARTS = [...PARTS, "é", "É", "東京", "😀", "\u00a0", "\u2028", "ǅ", "٣", "\u0301"];
const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
  maxLength: 60,
});

function scanPieces(text: string): string[] {
  const bytes = asciiBytes(text)!;
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = asciiPieceEnd(bytes, text.length, start);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

const encoder = new Tiktoken(o200kBase);
// The count as the tokenizer gives it, piece by piece, long pieces in 32-character slices.
function referenceCount(text: string): number {
  let count = 0;
  for (const piece of text.match(PATTERN) ?? []) {
    if (piece.length <= 64) count += encoder.encode(piece, [], []).length;
    else {
      for (let start = 0; start < piece.length; ) {
        let end = Math.min(start + 32, piece.length);
        if (end < piece.length && /[\uD800-\uDBFF]/.test(piece[end - 1]!)) end++;
        count += encoder.encode(piece.slice(start, end), [], []).length;
        start = end;
      }
    }
  }
  return count;
}

describe("splitting ASCII text into tokenizer pieces", () => {
  it("gives the pieces the tokenizer's pattern gives, for any ASCII text", () => {
    fc.assert(
      fc.property(asciiText, (text) => {
        expect(scanPieces(text)).toEqual(text.match(PATTERN) ?? []);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the pattern's pieces where its alternatives meet", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PARTS), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(scanPieces(text)).toEqual(text.match(PATTERN) ?? []);
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves text with any other character to the pattern", () => {
    expect([...asciiBytes("It's 12:30 -- fine\n")!.subarray(0, 4)]).toEqual([73, 116, 39, 115]);
    for (const text of ["café", "😀", "a\ud800", "\u0080", "x".repeat(5000) + "é"])
      expect(asciiBytes(text)).toBeUndefined();
    expect(asciiBytes("y".repeat(70_000))?.length).toBeGreaterThanOrEqual(70_000);
    expect(asciiBytes("z".repeat(2_000_000))).toBeUndefined();
  });
});

describe("counting text tokens", () => {
  it("counts what the tokenizer counts, ASCII or not", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...MORE_PARTS), { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        expect(countTextTokens(text)).toBe(referenceCount(text));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(countTextTokens(text)).toBe(referenceCount(text));
      }),
      { numRuns: 500 },
    );
    for (const text of [
      "x".repeat(200),
      "ab ".repeat(30_000),
      "long ".repeat(300_000),
      `${"😀".repeat(40)} ${"a".repeat(31)}😀${"b".repeat(70)}`,
      "1".repeat(100),
      " ".repeat(90) + "!".repeat(90),
    ]) {
      expect(countTextTokens(text)).toBe(referenceCount(text));
    }
  });

  it("counts the same text the same way again, from its remembered pieces", () => {
    const text = "Summarise the benefits of unit tests in two sentences. It's 12:30 -- fine\n";
    const first = countTextTokens(text);
    expect(countTextTokens(text)).toBe(first);
    expect(countTextTokens(`x${text}`.slice(1))).toBe(first);
    expect(first).toBe(referenceCount(text));
  });
});

describe("PieceCache", () => {
  it("finds a remembered piece inside a longer text, and nothing else", () => {
    const cache = new PieceCache();
    cache.add(" world", 1);
    cache.add("hello", 2);
    expect(cache.find("hello world", 0, 5)).toBe(2);
    expect(cache.find("hello world", 5, 11)).toBe(1);
    expect(cache.find("hello world", 0, 4)).toBe(-1);
    expect(cache.find("hello worle", 5, 11)).toBe(-1);
  });

  it("tells apart many pieces, with their characters kept as they were", () => {
    const cache = new PieceCache();
    const pieces = Array.from({ length: 5000 }, (_, index) => `p${index.toString(36)}é😀`.slice(0, 2 + (index % 5)));
    const unique = [...new Set(pieces)];
    unique.forEach((piece, index) => cache.add(piece, index + 1));
    unique.forEach((piece, index) => expect(cache.find(`..${piece}..`, 2, 2 + piece.length)).toBe(index + 1));
    expect(cache.find("zzzz", 0, 4)).toBe(-1);
  });
});
