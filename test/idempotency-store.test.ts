import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdempotencyStore, fingerprintOf, type StoredResponse } from "../src/server/idempotency-store.js";
import { KeyAccount } from "../src/server/key-account.js";

const never = new Promise<void>(() => undefined);
const account = () => new KeyAccount({ key: "sk-store-test", models: "*" });

function answer(requestId: string, text = `{"id":"${requestId}"}`): StoredResponse {
  return { requestId, headers: { "x-request-id": requestId }, body: { kind: "json", text } };
}

async function storeOne(
  store: IdempotencyStore,
  owner: KeyAccount,
  key: string,
  response: StoredResponse,
): Promise<void> {
  const lookup = await store.begin(owner, key, "f", never);
  if (lookup?.kind !== "claimed") throw new Error(`Expected a claim for ${key}.`);
  lookup.claim.store(response);
}

describe("IdempotencyStore bounds", () => {
  it("keeps at most maxEntriesPerKey responses, forgetting the least recently used", async () => {
    const store = new IdempotencyStore({ maxEntriesPerKey: 2, ttlMs: 60_000, maxBytesPerKey: 1e9 });
    const owner = account();
    await storeOne(store, owner, "a", answer("r-a"));
    await storeOne(store, owner, "b", answer("r-b"));
    expect((await store.begin(owner, "a", "f", never))?.kind).toBe("replay");
    await storeOne(store, owner, "c", answer("r-c"));
    expect(store.size(owner)).toBe(2);
    expect((await store.begin(owner, "a", "f", never))?.kind).toBe("replay");
    expect((await store.begin(owner, "b", "f", never))?.kind).toBe("claimed");
  });

  it("forgets a response ttlMs after it was stored, replays or not", async () => {
    let now = 1_000;
    const store = new IdempotencyStore({ maxEntriesPerKey: 10, ttlMs: 500, maxBytesPerKey: 1e9 }, () => now);
    const owner = account();
    await storeOne(store, owner, "a", answer("r-a"));
    now += 499;
    expect((await store.begin(owner, "a", "f", never))?.kind).toBe("replay");
    now += 1;
    expect((await store.begin(owner, "a", "f", never))?.kind).toBe("claimed");
  });

  it("keeps the stored bodies of a key within maxBytesPerKey", async () => {
    const store = new IdempotencyStore({ maxEntriesPerKey: 100, ttlMs: 60_000, maxBytesPerKey: 25 });
    const owner = account();
    await storeOne(store, owner, "a", answer("r-a", "x".repeat(10)));
    await storeOne(store, owner, "b", answer("r-b", "y".repeat(10)));
    await storeOne(store, owner, "c", answer("r-c", "z".repeat(10)));
    expect(store.size(owner)).toBe(2);
    expect((await store.begin(owner, "a", "f", never))?.kind).toBe("claimed");
  });

  it("forgets a refunded request by its request id", async () => {
    const store = new IdempotencyStore();
    const owner = account();
    await storeOne(store, owner, "a", answer("r-a"));
    store.forget(owner, "r-a");
    expect((await store.begin(owner, "a", "f", never))?.kind).toBe("claimed");
  });

  it("hands the key to a waiting repeat when the first request is abandoned, and stops waiting for a client that left", async () => {
    const store = new IdempotencyStore();
    const owner = account();
    const first = await store.begin(owner, "a", "f", never);
    if (first?.kind !== "claimed") throw new Error("Expected a claim.");
    let leave!: () => void;
    const left = store.begin(owner, "a", "f", new Promise<void>((resolve) => (leave = resolve)));
    const waiting = store.begin(owner, "a", "f", never);
    leave();
    expect(await left).toBeUndefined();
    first.claim.abandon();
    expect((await waiting)?.kind).toBe("claimed");
  });
});

describe("fingerprintOf", () => {
  const json = fc.jsonValue();

  it("ignores key order: a shuffled copy has the same fingerprint", () => {
    fc.assert(
      fc.property(json, (value) => {
        const reordered = JSON.parse(
          JSON.stringify(value, (_key, inner: unknown) =>
            inner !== null && typeof inner === "object" && !Array.isArray(inner)
              ? Object.fromEntries(Object.entries(inner).reverse())
              : inner,
          ),
        ) as unknown;
        expect(fingerprintOf("/p", reordered)).toBe(fingerprintOf("/p", value));
      }),
    );
  });

  it("tells different bodies and different paths apart", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        const sameAsB = JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
        expect(fingerprintOf("/p", a) === fingerprintOf("/p", b)).toBe(sameAsB);
        expect(fingerprintOf("/p", a)).not.toBe(fingerprintOf("/q", a));
      }),
    );
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((name) => [name, sortKeys((value as Record<string, unknown>)[name])]),
    );
  }
  return value;
}
