import { isUtf8 } from "node:buffer";
import { StreamError } from "../errors.js";

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` field, when the server named the event. */
  readonly event?: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
  /** The last `id:` field seen, as the SSE rules carry it over between events. */
  readonly id?: string;
  /** A `retry:` field sent with this event, in milliseconds. */
  readonly retryMs?: number;
}

/** The data value that ends a chat-completions stream. */
export const DONE_MARKER = "[DONE]";

const KNOWN_FIELDS = new Set(["data", "event", "id", "retry"]);
const BLANK = /^\s*$/;

/**
 * Parses a byte stream into server-sent events, whatever the split of the bytes into chunks.
 * Ends at `data: [DONE]` (or a bare `[DONE]` line) or at the end of the input. An event whose data
 * is blank is a keep-alive and is not dispatched. A line that is not a known field, a comment or
 * empty, and bytes that are not UTF-8, are thrown as StreamError instead of being skipped.
 */
export async function* parseSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const chunk of source) {
    yield* decoder.feed(chunk);
    if (decoder.done) return;
  }
  yield* decoder.end();
}

/**
 * The SSE parser without the async iteration: `push` each chunk of the body as it arrives, then
 * `take` the events it completed one at a time.
 */
export class SseDecoder {
  readonly #utf8 = new Utf8Decoder();
  readonly #state = new EventBuilder();
  #buffer = "";
  // Where the next line starts: what comes before it has been parsed.
  #start = 0;
  // Where the scan for line ends resumes, so a long line split into many chunks is scanned once.
  #scanFrom = 0;
  // Gateways end lines with "\n", which indexOf finds fastest; a "\r" anywhere needs the general scan.
  #lineEnd: RegExp | undefined;
  // A chunk ending in "\r" may be the first half of "\r\n"; the "\n" must then not end a second line.
  #skipLeadingLf = false;
  #done = false;

  /** True once `data: [DONE]` arrived: the stream is over, whatever follows it. */
  get done(): boolean {
    return this.#done;
  }

  /** Takes the next chunk of the body (nothing is parsed until `take`). */
  push(chunk: Uint8Array | string): void {
    if (this.#done) return;
    let text = typeof chunk === "string" ? chunk : this.#utf8.decode(chunk);
    if (this.#skipLeadingLf && text.length > 0) {
      if (text.startsWith("\n")) text = text.slice(1);
      this.#skipLeadingLf = false;
    }
    if (this.#lineEnd === undefined && text.includes("\r")) this.#lineEnd = /[\r\n]/g;
    const rest = this.#start === 0 ? this.#buffer : this.#buffer.slice(this.#start);
    this.#scanFrom -= this.#start;
    this.#start = 0;
    this.#buffer = rest + text;
  }

  /** The next event the pushed bytes complete, or undefined when they hold no more (or `[DONE]`
   * came). A line that is not a known field, a comment or empty is thrown as StreamError. */
  take(): SseEvent | undefined {
    const buffer = this.#buffer;
    const lineEnd = this.#lineEnd;
    let index = this.#scanFrom;
    while (!this.#done) {
      let after: number;
      if (lineEnd === undefined) {
        index = buffer.indexOf("\n", index);
        if (index === -1) break;
        after = index + 1;
      } else {
        lineEnd.lastIndex = index;
        const found = lineEnd.exec(buffer);
        if (found === null) break;
        index = found.index;
        after = index + 1;
        if (found[0] === "\r") {
          if (after < buffer.length) {
            if (buffer[after] === "\n") after++;
          } else {
            this.#skipLeadingLf = true;
          }
        }
      }
      const event = this.#state.line(buffer, this.#start, index);
      this.#start = this.#scanFrom = index = after;
      if (event === undefined) continue;
      if (isDone(event.data)) {
        this.#done = true;
        break;
      }
      return event;
    }
    if (this.#done) {
      // Whatever follows [DONE] is ignored; a decoder kept past its stream must not keep the text.
      this.#buffer = "";
      this.#start = this.#scanFrom = 0;
    } else this.#scanFrom = buffer.length;
    return undefined;
  }

  /** Pushes `chunk` and returns all the events it completed (none after [DONE]). */
  feed(chunk: Uint8Array | string): SseEvent[] {
    const events: SseEvent[] = [];
    this.push(chunk);
    for (let event = this.take(); event !== undefined; event = this.take()) events.push(event);
    return events;
  }

  /** The body ended: returns the last event, when it lacked its blank line. Events pushed before
   * and not taken yet are not among them: take those first. */
  end(): SseEvent[] {
    if (this.#done) return [];
    this.#utf8.end();
    this.#done = true;
    const buffer = this.#buffer.slice(this.#start);
    this.#buffer = "";
    this.#start = this.#scanFrom = 0;
    // The last event may lack its blank line; dispatching it keeps its data, and a consumer that
    // cannot parse a truncated event then reports that instead of losing it silently.
    if (buffer.length > 0) this.#state.line(buffer, 0, buffer.length);
    const last = this.#state.line("", 0, 0);
    return last !== undefined && !isDone(last.data) ? [last] : [];
  }
}

// Relays pad the marker ("data: [DONE] ", trailing "\r" from a CR CR LF); it still ends the stream.
function isDone(data: string): boolean {
  return data.length <= 12 && data.trim() === DONE_MARKER;
}

/**
 * Strict UTF-8 for a byte stream split anywhere. Buffer#toString is several times faster than a
 * fatal TextDecoder on small chunks (measured), and isUtf8 keeps the strictness: bad bytes throw.
 */
class Utf8Decoder {
  // The first bytes of a character split across chunks.
  #pending: Buffer | undefined;
  #first = true;

  decode(chunk: Uint8Array): string {
    const bytes =
      this.#pending === undefined
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
        : Buffer.concat([this.#pending, chunk]);
    const end = completeLength(bytes);
    this.#pending = end < bytes.length ? Buffer.from(bytes.subarray(end)) : undefined;
    const whole = bytes.subarray(0, end);
    if (!isUtf8(whole)) throw new StreamError("The stream is not valid UTF-8.");
    const text = whole.toString("utf8");
    if (!this.#first || text.length === 0) return text;
    this.#first = false;
    // A byte order mark at the start of the stream is not part of its text (the SSE rules).
    return text.startsWith("\uFEFF") ? text.slice(1) : text;
  }

  end(): void {
    if (this.#pending !== undefined) throw new StreamError("The stream ended inside a UTF-8 character.");
  }
}

/** The length of `bytes` without a character cut off at its end. */
function completeLength(bytes: Buffer): number {
  let lead = bytes.length - 1;
  // Back over up to three continuation bytes (10xxxxxx) to the byte that starts the character.
  while (lead >= 0 && bytes.length - lead <= 3 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return bytes.length;
  const first = bytes[lead]!;
  const size = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return bytes.length - lead < size ? lead : bytes.length;
}

/** Accumulates field lines until a blank line dispatches them. */
class EventBuilder {
  // The data lines so far, joined with "\n" (undefined: none).
  #data: string | undefined;
  #event: string | undefined;
  #id: string | undefined;
  #retryMs: number | undefined;

  /** Feeds one line, `text` from `start` to `end`; returns an event when the line is blank and
   * data was buffered. */
  line(text: string, start: number, end: number): SseEvent | undefined {
    if (start === end) return this.#dispatch();
    // The line nearly every event has, read without slicing it twice.
    if (text.startsWith("data: ", start)) {
      this.#addData(text.slice(start + 6, end));
      return undefined;
    }
    const line = text.slice(start, end);
    if (line.startsWith(":")) return undefined;
    // Some relays end with the marker alone on its line, without "data:" (Portkey-AI/gateway#55;
    // new-api's stream scanner passes such lines on).
    if (isDone(line)) return new DataEvent(DONE_MARKER);

    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);

    if (!KNOWN_FIELDS.has(field)) {
      throw new StreamError(`Malformed SSE line (unknown field "${field.slice(0, 40)}"): ${line.slice(0, 120)}`);
    }
    if (field === "data") this.#addData(value);
    else if (field === "event") this.#event = value;
    else if (field === "id") {
      if (!value.includes("\0")) this.#id = value;
    } else if (/^\d+$/.test(value)) this.#retryMs = Number(value);
    return undefined;
  }

  #addData(value: string): void {
    this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data;
    this.#data = undefined;
    // A blank data line is a keep-alive some proxies send (`data: ` alone): no event, as the SSE
    // rules say for empty data; whitespace only is no JSON either (Growth-Circle/cadis#2329).
    if (data === undefined || BLANK.test(data)) {
      this.#event = undefined;
      this.#retryMs = undefined;
      return undefined;
    }
    const event = this.#event !== undefined && this.#event !== "" ? this.#event : undefined;
    const id = this.#id;
    const retryMs = this.#retryMs;
    this.#event = undefined;
    this.#retryMs = undefined;
    if (event === undefined && id === undefined && retryMs === undefined) return new DataEvent(data);
    return {
      data,
      ...(event === undefined ? {} : { event }),
      ...(id === undefined ? {} : { id }),
      ...(retryMs === undefined ? {} : { retryMs }),
    };
  }
}

/** The event nearly every stream sends: data only. */
class DataEvent implements SseEvent {
  constructor(readonly data: string) {}
}
