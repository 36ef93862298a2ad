import type { ChatChunk } from "./wire.js";

// Characters a JSON string body shows as themselves only when it has none of them.
const NEEDS_DECODING = /["\\\u0000-\u001f]/;
// Shapes learned without a match before the stream stops learning: a gateway whose chunks differ
// in more than their text (a per-chunk id, logprobs) would otherwise pay for learning every chunk.
const MAX_MISSES = 4;

/**
 * Most events of a streamed reply are the same JSON but for the text they add: same id, model,
 * creation time, choice and nulls. Once one such chunk has been parsed and checked, this knows the
 * text before and after its content string, and reads the next ones' text by comparing strings
 * instead of parsing them into objects (about three times faster than JSON.parse, measured, and
 * nothing to collect). An event that differs anywhere else is not matched, and is parsed.
 */
export class TextDeltaShape {
  // The event's text up to and including the content string's opening quote, and from its
  // closing quote on; "" when no shape is known.
  #prefix = "";
  #suffix = "";
  #misses = 0;

  /** The text of an event shaped like the last chunk learned, but for its text; else undefined. */
  match(data: string): string | undefined {
    const prefix = this.#prefix;
    if (prefix === "") return undefined;
    const suffix = this.#suffix;
    const end = data.length - suffix.length;
    // Sliced and compared rather than startsWith/endsWith: twice as fast on V8 (measured).
    if (end < prefix.length || data.slice(0, prefix.length) !== prefix || data.slice(end) !== suffix) return undefined;
    this.#misses = 0;
    const body = data.slice(prefix.length, end);
    if (!NEEDS_DECODING.test(body)) return body;
    try {
      // A lone quote in the body means the event has another structure: JSON.parse refuses it.
      return JSON.parse(`"${body}"`) as string;
    } catch {
      return undefined;
    }
  }

  /** Learns the shape of `data`, a parsed and checked chunk, when it only adds text to choice 0
   * (or forgets the last shape when it does not). */
  learn(data: string, chunk: ChatChunk): void {
    const text = textOnly(chunk);
    if (text === undefined || this.#misses >= MAX_MISSES) return this.#forget();
    const field = `"content":${JSON.stringify(text)}`;
    const at = data.indexOf(field);
    if (at === -1 || data.includes(field, at + 1)) return this.#forget();
    const prefix = data.slice(0, at + '"content":"'.length);
    const suffix = data.slice(at + field.length - 1);
    // The field found must be the delta's content and no other string: a probe text put in its
    // place must come back there.
    if (!isProbeAt(`${prefix}\\u0000probe${suffix}`)) return this.#forget();
    this.#prefix = prefix;
    this.#suffix = suffix;
    this.#misses++;
  }

  #forget(): void {
    this.#prefix = this.#suffix = "";
  }
}

/** The text of a chunk that carries nothing but text for choice 0: no role, finish, tool call or usage. */
function textOnly(chunk: ChatChunk): string | undefined {
  if (chunk.usage != null || chunk.choices.length !== 1) return undefined;
  const choice = chunk.choices[0]!;
  if (choice.index !== 0 || choice.finish_reason != null) return undefined;
  const delta = choice.delta as Record<string, unknown>;
  const text = delta.content;
  if (typeof text !== "string") return undefined;
  for (const key in delta) if (key !== "content") return undefined;
  return text;
}

function isProbeAt(data: string): boolean {
  try {
    const chunk = JSON.parse(data) as ChatChunk;
    return textOnly(chunk) === "\u0000probe";
  } catch {
    return false;
  }
}
