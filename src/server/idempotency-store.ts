import { createHash } from "node:crypto";
import type { KeyAccount } from "./key-account.js";

/** A billed response, kept so a repeat of its idempotency key gets it again instead of a new bill. */
export interface StoredResponse {
  /** The x-request-id of the billed request (its entry in the key's billed list). */
  readonly requestId: string;
  /** The id headers the billed response carried, sent again with the replay. */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON text; the `data:` events of a clean stream; or a relay dialect's whole SSE body. */
  readonly body:
    | { readonly kind: "json"; readonly text: string }
    | { readonly kind: "sse"; readonly events: readonly string[] }
    | { readonly kind: "sse-text"; readonly text: string };
}

/** How much one API key's store keeps: whichever bound is reached first evicts. */
export interface IdempotencyLimits {
  /** Stored responses per key; the least recently used goes first. */
  readonly maxEntriesPerKey: number;
  /** How long a stored response can be replayed, from when it was billed. */
  readonly ttlMs: number;
  /** Bytes of stored bodies per key (image replies are large). */
  readonly maxBytesPerKey: number;
}

/** The defaults: 10,000 responses, 24 hours, 256 MiB per key. */
export const IDEMPOTENCY_LIMITS: IdempotencyLimits = {
  maxEntriesPerKey: 10_000,
  ttlMs: 24 * 60 * 60 * 1000,
  maxBytesPerKey: 256 * 1024 * 1024,
};

/** The first request of a key, which settles it: store once billed, or abandon. */
export interface IdempotencyClaim {
  /** Keeps the billed response for repeats; later calls (and abandon) do nothing. */
  store(response: StoredResponse): void;
  /** Gives the key up unbilled: a repeat runs for real. Does nothing after store. */
  abandon(): void;
}

/** What a request with an idempotency key should do. */
export type IdempotencyLookup =
  | { readonly kind: "replay"; readonly response: StoredResponse }
  | { readonly kind: "conflict" }
  | { readonly kind: "claimed"; readonly claim: IdempotencyClaim };

interface Stored {
  readonly fingerprint: string;
  readonly response: StoredResponse;
  readonly expiresAt: number;
  readonly bytes: number;
}

interface Pending {
  readonly fingerprint: string;
  readonly settled: Promise<void>;
}

interface KeySpace {
  readonly stored: Map<string, Stored>;
  readonly pending: Map<string, Pending>;
  bytes: number;
}

/** Billed responses by API key and idempotency key, bounded by IdempotencyLimits. */
export class IdempotencyStore {
  readonly #limits: IdempotencyLimits;
  readonly #now: () => number;
  readonly #spaces = new Map<KeyAccount, KeySpace>();
  /** Told of every stored response (a gateway with a state folder writes it down). */
  onStored:
    | ((
        account: KeyAccount,
        key: string,
        record: { fingerprint: string; response: StoredResponse; expiresAt: number },
      ) => void)
    | undefined;

  constructor(limits: IdempotencyLimits = IDEMPOTENCY_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /**
   * Looks a key up for a request with this fingerprint. A repeat of a request still in flight waits
   * for it, then replays its response or (when it was not billed) takes the claim itself; resolves
   * undefined when `gone` resolves first (the waiting client left).
   */
  async begin(
    account: KeyAccount,
    key: string,
    fingerprint: string,
    gone: Promise<void>,
  ): Promise<IdempotencyLookup | undefined> {
    const space = this.#space(account);
    for (;;) {
      const stored = this.#stored(space, key);
      if (stored)
        return stored.fingerprint === fingerprint
          ? { kind: "replay", response: stored.response }
          : { kind: "conflict" };
      const pending = space.pending.get(key);
      if (!pending) return { kind: "claimed", claim: this.#claim(account, space, key, fingerprint) };
      if (pending.fingerprint !== fingerprint) return { kind: "conflict" };
      const left = await Promise.race([pending.settled.then(() => false), gone.then(() => true)]);
      if (left) return undefined;
    }
  }

  /** Forgets the response of a billed request that was refunded (a failed music job), so a repeat runs again. */
  forget(account: KeyAccount, requestId: string): void {
    const space = this.#spaces.get(account);
    if (!space) return;
    for (const [key, entry] of space.stored) {
      if (entry.response.requestId === requestId) this.#delete(space, key, entry);
    }
  }

  /** Keeps a response an earlier gateway stored (read back from its state folder); an expired one is dropped. */
  restore(
    account: KeyAccount,
    key: string,
    record: { fingerprint: string; response: StoredResponse; expiresAt: number },
  ): void {
    if (record.expiresAt <= this.#now()) return;
    const space = this.#space(account);
    const bytes = bodyBytes(record.response);
    space.stored.set(key, { ...record, bytes });
    space.bytes += bytes;
    this.#evict(space);
  }

  /** Stored responses of a key, for stats. */
  size(account: KeyAccount): number {
    return this.#spaces.get(account)?.stored.size ?? 0;
  }

  #space(account: KeyAccount): KeySpace {
    let space = this.#spaces.get(account);
    if (!space) {
      space = { stored: new Map(), pending: new Map(), bytes: 0 };
      this.#spaces.set(account, space);
    }
    return space;
  }

  #stored(space: KeySpace, key: string): Stored | undefined {
    const entry = space.stored.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#delete(space, key, entry);
      return undefined;
    }
    // Least recently used goes first: a replay refreshes the entry's place (not its expiry).
    space.stored.delete(key);
    space.stored.set(key, entry);
    return entry;
  }

  #claim(account: KeyAccount, space: KeySpace, key: string, fingerprint: string): IdempotencyClaim {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    space.pending.set(key, { fingerprint, settled });
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      space.pending.delete(key);
      return true;
    };
    return {
      store: (response) => {
        if (!close()) return;
        const bytes = bodyBytes(response);
        const expiresAt = this.#now() + this.#limits.ttlMs;
        this.onStored?.(account, key, { fingerprint, response, expiresAt });
        space.stored.set(key, { fingerprint, response, expiresAt, bytes });
        space.bytes += bytes;
        this.#evict(space);
        settle();
      },
      abandon: () => {
        if (close()) settle();
      },
    };
  }

  #evict(space: KeySpace): void {
    const { maxEntriesPerKey, maxBytesPerKey } = this.#limits;
    for (const [key, entry] of space.stored) {
      if (space.stored.size <= maxEntriesPerKey && space.bytes <= maxBytesPerKey) return;
      this.#delete(space, key, entry);
    }
  }

  #delete(space: KeySpace, key: string, entry: Stored): void {
    space.stored.delete(key);
    space.bytes -= entry.bytes;
  }
}

/** Identifies a request by its path and body; key order and spacing in the JSON do not matter. */
export function fingerprintOf(path: string, body: unknown): string {
  return createHash("sha256").update(path).update("\n").update(canonicalJson(body)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function bodyBytes(response: StoredResponse): number {
  const { body } = response;
  if (body.kind === "json" || body.kind === "sse-text") return Buffer.byteLength(body.text);
  return body.events.reduce((sum, event) => sum + Buffer.byteLength(event), 0);
}
