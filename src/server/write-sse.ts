import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { writeHeadWithIds } from "./request-ids.js";

/** One SSE frame: a `data:` event (JSON text, or `[DONE]`), or a `:` comment line (keep-alive). */
export type SseFrame = { readonly data: string } | { readonly comment: string };

/** How a stream of frames ends: `data: [DONE]` then close, or a close without it. */
export type SseEnd = "done" | "close";

/** The SSE text of frames, `data: [DONE]` appended when `end` is "done". */
export function sseText(frames: readonly SseFrame[], end: SseEnd | false = false): string {
  let text = "";
  for (const frame of frames) text += "data" in frame ? `data: ${frame.data}\n\n` : `: ${frame.comment}\n\n`;
  return end === "done" ? `${text}data: [DONE]\n\n` : text;
}

const SSE_HEAD: readonly string[] = [
  "content-type",
  "text/event-stream; charset=utf-8",
  "cache-control",
  "no-cache",
  "x-accel-buffering",
  "no",
];

/** Writes a server-sent-event stream; every SSE byte the gateway sends goes through here. */
export class SseWriter {
  readonly #response: ServerResponse;

  constructor(response: ServerResponse) {
    this.#response = response;
  }

  /** False once the client went away or the stream was ended or cut. */
  get open(): boolean {
    return !this.#response.destroyed && !this.#response.writableEnded;
  }

  /** Sends the 200 head of an event stream. */
  start(): void {
    writeHeadWithIds(this.#response, 200, SSE_HEAD);
  }

  /**
   * Writes `data:` events (JSON texts) in one write, and with `done` the terminating
   * `data: [DONE]` and the end of the response. Resolves at once unless the socket's buffer is full.
   */
  async events(jsonTexts: readonly string[], done = false): Promise<void> {
    if (!this.open) return;
    // One join builds a flat string; appending event by event built a deep rope to flatten on write.
    const text = jsonTexts.length === 0 ? "" : `data: ${jsonTexts.join("\n\ndata: ")}\n\n`;
    if (done) {
      this.#response.end(`${text}data: [DONE]\n\n`);
      return;
    }
    if (text !== "" && !this.#response.write(text) && this.open) {
      await Promise.race([once(this.#response, "drain"), once(this.#response, "close")]);
    }
  }

  /**
   * Writes frames (events and comments) in one write; with `end` the stream then ends, after
   * `data: [DONE]` when `end` is "done". Resolves at once unless the socket's buffer is full.
   */
  async frames(frames: readonly SseFrame[], end: SseEnd | false = false): Promise<void> {
    if (!this.open) return;
    const text = sseText(frames, end);
    if (end !== false) {
      this.#response.end(text);
      return;
    }
    if (text !== "" && !this.#response.write(text) && this.open) {
      await Promise.race([once(this.#response, "drain"), once(this.#response, "close")]);
    }
  }

  /** Ends the stream with a body already in SSE form, `data: [DONE]` included (RenderedReply.sse). */
  finish(body: string): void {
    if (this.open) this.#response.end(body);
  }

  /** Cuts the connection mid-stream, after what was written has gone out (fault injection). */
  async cut(): Promise<void> {
    const socket = this.#response.socket;
    // Writes are corked until the next tick; cutting before then would lose them too.
    await new Promise((resolve) => setImmediate(resolve));
    if (socket && socket.writableLength > 0 && !socket.destroyed) {
      await Promise.race([once(socket, "drain"), once(socket, "close")]);
    }
    socket?.destroy();
    this.#response.destroy();
  }
}
