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

/**
 * Parses a byte stream into server-sent events, whatever the split of the bytes into chunks.
 * Ends at `data: [DONE]` or at the end of the input. A line that is not a known field, a comment
 * or empty, and bytes that are not UTF-8, are thrown as StreamError instead of being skipped.
 */
export async function* parseSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const chunk of source) {
    // Not `yield*`: delegating to an array from an async generator costs a promise per event.
    for (const event of decoder.feed(chunk)) yield event;
    if (decoder.done) return;
  }
  for (const event of decoder.end()) yield event;
}

/**
 * The SSE parser without the async iteration: feed it each chunk of the body as it arrives and
 * take the events that chunk completed. Readers of a busy stream use it to handle all the events
 * of one network read in one pass.
 */
export class SseDecoder {
  readonly #utf8 = new TextDecoder("utf-8", { fatal: true });
  readonly #state = new EventBuilder();
  #buffer = "";
  // Where the scan for line ends resumes, so a long line split into many chunks is scanned once.
  #scanFrom = 0;
  // A chunk ending in "\r" may be the first half of "\r\n"; the "\n" must then not end a second line.
  #skipLeadingLf = false;
  // The regex engine finds line ends far faster than a loop over characters.
  readonly #lineEnd = /[\r\n]/g;
  #done = false;

  /** True once `data: [DONE]` arrived: the stream is over, whatever follows it. */
  get done(): boolean {
    return this.#done;
  }

  /** Takes the next chunk of the body; returns the events it completed (none after [DONE]). */
  feed(chunk: Uint8Array | string): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#done) return events;
    let text: string;
    try {
      text = typeof chunk === "string" ? chunk : this.#utf8.decode(chunk, { stream: true });
    } catch (error) {
      throw new StreamError("The stream is not valid UTF-8.", { cause: error });
    }
    if (this.#skipLeadingLf && text.length > 0) {
      if (text.startsWith("\n")) text = text.slice(1);
      this.#skipLeadingLf = false;
    }
    const buffer = this.#buffer + text;
    const lineEnd = this.#lineEnd;
    let start = 0;
    lineEnd.lastIndex = this.#scanFrom;
    for (let found = lineEnd.exec(buffer); found !== null; found = lineEnd.exec(buffer)) {
      let index = found.index;
      const line = buffer.slice(start, index);
      if (found[0] === "\r") {
        if (index + 1 < buffer.length) {
          if (buffer[index + 1] === "\n") index++;
        } else {
          this.#skipLeadingLf = true;
        }
      }
      start = index + 1;
      lineEnd.lastIndex = start;
      const event = this.#state.line(line);
      if (event === undefined) continue;
      if (event.data === DONE_MARKER) {
        this.#done = true;
        break;
      }
      events.push(event);
    }
    this.#buffer = buffer.slice(start);
    this.#scanFrom = this.#buffer.length;
    return events;
  }

  /** The body ended: returns the last event, when it lacked its blank line. */
  end(): SseEvent[] {
    if (this.#done) return [];
    let buffer = this.#buffer;
    try {
      buffer += this.#utf8.decode();
    } catch (error) {
      throw new StreamError("The stream ended inside a UTF-8 character.", { cause: error });
    }
    this.#done = true;
    // The last event may lack its blank line; dispatching it keeps its data, and a consumer that
    // cannot parse a truncated event then reports that instead of losing it silently.
    if (buffer.length > 0) this.#state.line(buffer);
    const last = this.#state.line("");
    return last !== undefined && last.data !== DONE_MARKER ? [last] : [];
  }
}

/** Accumulates field lines until a blank line dispatches them. */
class EventBuilder {
  #data: string[] = [];
  #event: string | undefined;
  #id: string | undefined;
  #retryMs: number | undefined;

  /** Feeds one line; returns an event when the line is blank and data was buffered. */
  line(line: string): SseEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;

    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);

    if (!KNOWN_FIELDS.has(field)) {
      throw new StreamError(`Malformed SSE line (unknown field "${field.slice(0, 40)}"): ${line.slice(0, 120)}`);
    }
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id") {
      if (!value.includes("\0")) this.#id = value;
    } else if (/^\d+$/.test(value)) this.#retryMs = Number(value);
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    if (this.#data.length === 0) {
      this.#event = undefined;
      this.#retryMs = undefined;
      return undefined;
    }
    const event: SseEvent = {
      data: this.#data.join("\n"),
      ...(this.#event !== undefined && this.#event !== "" ? { event: this.#event } : {}),
      ...(this.#id !== undefined ? { id: this.#id } : {}),
      ...(this.#retryMs !== undefined ? { retryMs: this.#retryMs } : {}),
    };
    this.#data = [];
    this.#event = undefined;
    this.#retryMs = undefined;
    return event;
  }
}
