import type { RenderedReply } from "./rendered-reply.js";

const MAX_ENTRIES = 512;
const MAX_KEY_LENGTH = 32 * 1024;

/**
 * Remembers rendered replies (and their prompt tokens) by request. Replies are deterministic for
 * the same request and seed, and clients send the same request again on retries, fallbacks and
 * repeated runs, so counting and simulating are skipped then. Requests with linked images are not
 * cached: what a link points to may change.
 */
export class ReplyCache {
  readonly #entries = new Map<string, RenderedReply>();

  /** The reply for a request key, if remembered. */
  get(key: string): RenderedReply | undefined {
    const reply = this.#entries.get(key);
    if (reply) {
      // Least recently used goes first: refresh this entry's position.
      this.#entries.delete(key);
      this.#entries.set(key, reply);
    }
    return reply;
  }

  /** Remembers a reply, forgetting the least recently used one when full. */
  set(key: string, reply: RenderedReply): void {
    if (key.length > MAX_KEY_LENGTH || /"url":\s*"https?:/i.test(key)) return;
    this.#entries.set(key, reply);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
