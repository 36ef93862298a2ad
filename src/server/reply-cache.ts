import { hashString } from "./faults.js";
import type { RenderedReply } from "./rendered-reply.js";

const MAX_ENTRIES = 512;
const MAX_KEY_LENGTH = 32 * 1024;
// A power of two, so a hash picks its slot with a mask.
const SEEN_SLOTS = 4096;

/**
 * Remembers rendered replies (and their prompt tokens) by request. Replies are deterministic for
 * the same request and seed, and clients send the same request again on retries, fallbacks and
 * repeated runs, so counting and simulating are skipped then. Requests with linked images are not
 * cached: what a link points to may change.
 *
 * A reply is kept from the second time its request comes: a one-off request would only push out a
 * reply that does repeat, and keeping every new reply alive for 512 requests made the garbage
 * collector copy each one through several collections.
 */
export class ReplyCache {
  readonly #entries = new Map<string, RenderedReply>();
  // Hashes of requests offered once, by slot; a collision only delays or hastens keeping a reply.
  readonly #seen = new Uint32Array(SEEN_SLOTS);

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

  /** Offers a reply: remembered if its request was offered before, forgetting the least recently used one when full.
   * `hash` is any fixed hash of the key; the caller may pass one it already has. */
  set(key: string, reply: RenderedReply, hash = hashString(key)): void {
    if (key.length > MAX_KEY_LENGTH || /"url":\s*"https?:/i.test(key)) return;
    const slot = hash & (SEEN_SLOTS - 1);
    if (this.#seen[slot] !== hash) {
      this.#seen[slot] = hash;
      return;
    }
    this.#entries.set(key, reply);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
