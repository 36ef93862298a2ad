import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { writeHeadWithIds } from "./request-ids.js";

const SSE_HEAD: readonly string[] = ["content-type", "text/event-stream; charset=utf-8", "cache-control", "no-cache", "x-accel-buffering", "no"];

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
