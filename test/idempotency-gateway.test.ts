import { describe, expect, it } from "vitest";
import { FaultInjector } from "../src/server/faults.js";
import {
  gatewayConfigSchema,
  startLocalGateway,
  type GatewayConfigInput,
  type LocalGateway,
} from "../src/server/index.js";
import { billedOf } from "./idempotency-harness.js";
import { chatBody, errorOf, postJson, sseEvents, useGateway } from "./server-helpers.js";

const MODEL = "alpha-sonnet-4-6";
const SLOW = "beta-4o-mini";
const gateway = useGateway({
  config: {
    keys: [
      { key: "sk-idem-one", name: "one" },
      { key: "sk-idem-two", name: "two" },
    ],
    faults: { models: { [SLOW]: { latencyMs: 300 } } },
  },
});

const chatURL = () => `${gateway().baseURL}/chat/completions`;
const withKey = (key: string) => ({ "idempotency-key": key });
const statsOf = (name: string) =>
  gateway()
    .stats()
    .keys.find((key) => key.name === name)!;

/** A seed whose fault sequence for `model` starts with `kinds`, so a test knows which request fails. */
function seedWhere(model: string, fault: Record<string, number>, kinds: string[]): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const injector = new FaultInjector(
      gatewayConfigSchema.parse({ faults: { seed, models: { [model]: fault } } }).faults,
    );
    if (kinds.every((kind) => injector.decide(model).kind === kind)) return seed;
  }
  throw new Error("No seed gives that fault sequence.");
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function withGateway<T>(config: GatewayConfigInput, task: (gateway: LocalGateway) => Promise<T>): Promise<T> {
  const local = await startLocalGateway({ config });
  try {
    return await task(local);
  } finally {
    await local.close();
  }
}

describe("Idempotency-Key on the local gateway", () => {
  it("replays a repeated non-streamed call with the same JSON and ids, billed once", async () => {
    const body = chatBody(MODEL, "Name three rivers.");
    const before = statsOf("one");
    const first = await postJson(chatURL(), body, "sk-idem-one", withKey("plain-1"));
    const second = await postJson(chatURL(), body, "sk-idem-one", withKey("plain-1"));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBe("false");
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get("x-request-id")).toBe(first.headers.get("x-request-id"));
    const after = statsOf("one");
    expect(after.billed.length - before.billed.length).toBe(1);
    expect(after.spentYuan).toBeGreaterThan(before.spentYuan);
    expect(after.requests.replayed - before.requests.replayed).toBe(1);
    expect(after.requests.total - before.requests.total).toBe(2);
  });

  it("replays a repeated stream as the same SSE events, billed once", async () => {
    const body = chatBody(MODEL, "Describe a lighthouse.", { stream: true, stream_options: { include_usage: true } });
    const before = statsOf("one").billed.length;
    const first = await postJson(chatURL(), body, "sk-idem-one", withKey("stream-1"));
    const firstEvents = sseEvents(await first.text());
    const second = await postJson(chatURL(), body, "sk-idem-one", withKey("stream-1"));
    expect(second.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const secondEvents = sseEvents(await second.text());
    expect(secondEvents).toEqual(firstEvents);
    expect(secondEvents.at(-1)).toBe("[DONE]");
    expect(statsOf("one").billed.length - before).toBe(1);
  });

  it("answers 422 idempotency_key_reused to the same key with another body, and bills nothing for it", async () => {
    await postJson(chatURL(), chatBody(MODEL, "First question."), "sk-idem-one", withKey("reused-1"));
    const before = statsOf("one").billed.length;
    const other = await postJson(chatURL(), chatBody(MODEL, "Another question."), "sk-idem-one", withKey("reused-1"));
    expect(other.status).toBe(422);
    const error = await errorOf(other);
    expect(error.code).toBe("idempotency_key_reused");
    expect(error.message).toMatch(/new key/);
    const streamed = await postJson(
      chatURL(),
      chatBody(MODEL, "First question.", { stream: true }),
      "sk-idem-one",
      withKey("reused-1"),
    );
    expect(streamed.status).toBe(422);
    expect(statsOf("one").billed.length).toBe(before);
  });

  it("treats the same JSON with other key order and spacing as the same request", async () => {
    const first = await postJson(
      chatURL(),
      '{"model":"alpha-sonnet-4-6","messages":[{"role":"user","content":"Order?"}]}',
      "sk-idem-one",
      withKey("order-1"),
    );
    const second = await postJson(
      chatURL(),
      '{ "messages": [{"content": "Order?", "role": "user"}], "model": "alpha-sonnet-4-6" }',
      "sk-idem-one",
      withKey("order-1"),
    );
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.text()).toBe(await first.text());
  });

  it("makes a duplicate sent while the first is in flight wait for it and replay its answer", async () => {
    const body = chatBody(SLOW, "Slow question.");
    const before = statsOf("one").billed.length;
    const [first, second] = await Promise.all([
      postJson(chatURL(), body, "sk-idem-one", withKey("flight-1")),
      postJson(chatURL(), body, "sk-idem-one", withKey("flight-1")),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.headers.get("idempotent-replayed"), second.headers.get("idempotent-replayed")].sort()).toEqual(
      ["true", "false"].sort(),
    );
    expect(await second.text()).toBe(await first.text());
    expect(statsOf("one").billed.length - before).toBe(1);
  });

  it("refuses another body for a key in flight at once, without waiting", async () => {
    const pendingFirst = postJson(chatURL(), chatBody(SLOW, "Slow one."), "sk-idem-one", withKey("flight-2"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const other = await postJson(chatURL(), chatBody(SLOW, "Slow two."), "sk-idem-one", withKey("flight-2"));
    expect(other.status).toBe(422);
    expect(Date.now() - started).toBeLessThan(250);
    expect((await pendingFirst).status).toBe(200);
  });

  it("keeps keys apart per API key: the same key and body under another API key is billed on its own", async () => {
    const body = chatBody(MODEL, "Shared key?");
    const [one, two] = [statsOf("one").billed.length, statsOf("two").billed.length];
    const a = await postJson(chatURL(), body, "sk-idem-one", withKey("shared-1"));
    const b = await postJson(chatURL(), body, "sk-idem-two", withKey("shared-1"));
    expect(a.headers.get("idempotent-replayed")).toBe("false");
    expect(b.headers.get("idempotent-replayed")).toBe("false");
    expect(statsOf("one").billed.length - one).toBe(1);
    expect(statsOf("two").billed.length - two).toBe(1);
  });

  it("refuses a malformed Idempotency-Key with 400 naming the header", async () => {
    const response = await postJson(chatURL(), chatBody(MODEL), "sk-idem-one", withKey("x".repeat(256)));
    expect(response.status).toBe(400);
    expect((await errorOf(response)).param).toBe("Idempotency-Key");
  });

  it("does not store failures or injected faults: the repeat really runs and is billed once", async () => {
    const fault = { errorRate: 0.5 };
    const seed = seedWhere(MODEL, fault, ["error", "none"]);
    await withGateway({ faults: { seed, models: { [MODEL]: fault } } }, async (local) => {
      const url = `${local.baseURL}/chat/completions`;
      const body = chatBody(MODEL, "Fault then answer.");
      const failed = await postJson(url, body, "sk-local-demo", withKey("fault-1"));
      expect(failed.status).toBe(503);
      const answered = await postJson(url, body, "sk-local-demo", withKey("fault-1"));
      expect(answered.status).toBe(200);
      expect(answered.headers.get("idempotent-replayed")).toBe("false");
      expect(billedOf(local)).toHaveLength(1);
      const replayed = await postJson(url, body, "sk-local-demo", withKey("fault-1"));
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(billedOf(local)).toHaveLength(1);
    });
  });

  it("does not store a stream the gateway cut: the repeat streams for real, billed once", async () => {
    const fault = { dropRate: 0.5 };
    const seed = seedWhere(MODEL, fault, ["drop", "none"]);
    await withGateway({ faults: { seed, models: { [MODEL]: fault } } }, async (local) => {
      const url = `${local.baseURL}/chat/completions`;
      const body = chatBody(MODEL, "Cut then answer.", { stream: true });
      const cut = await postJson(url, body, "sk-local-demo", withKey("drop-1"));
      await expect(cut.text()).rejects.toThrow();
      expect(billedOf(local)).toHaveLength(0);
      const again = await postJson(url, body, "sk-local-demo", withKey("drop-1"));
      expect(again.headers.get("idempotent-replayed")).toBe("false");
      expect(sseEvents(await again.text()).at(-1)).toBe("[DONE]");
      expect(billedOf(local)).toHaveLength(1);
    });
  });

  it("keeps a call's claim after its client left, so a call billed after the close is replayed to the repeat", async () => {
    const config = { billAfterDisconnect: true, faults: { models: { [SLOW]: { latencyMs: 300 } } } };
    await withGateway(config, async (local) => {
      const url = `${local.baseURL}/chat/completions`;
      const body = chatBody(SLOW, "Billed after the client left.");
      const leaving = new AbortController();
      const first = postJson(url, body, "sk-local-demo", withKey("left-1"), leaving.signal);
      await until(() => local.stats().keys[0]!.inFlight === 1);
      leaving.abort();
      await expect(first).rejects.toThrow();
      // Sent while the first is still running at the gateway: it waits for it, then gets its answer.
      const repeat = await postJson(url, body, "sk-local-demo", withKey("left-1"));
      expect(repeat.status).toBe(200);
      expect(repeat.headers.get("idempotent-replayed")).toBe("true");
      expect(billedOf(local)).toHaveLength(1);
    });
  });

  it("runs a repeat for real once a call whose client left ends unbilled", async () => {
    await withGateway({ faults: { models: { [SLOW]: { latencyMs: 300 } } } }, async (local) => {
      const url = `${local.baseURL}/chat/completions`;
      const body = chatBody(SLOW, "Left before the answer.");
      const leaving = new AbortController();
      const first = postJson(url, body, "sk-local-demo", withKey("left-2"), leaving.signal);
      await until(() => local.stats().keys[0]!.inFlight === 1);
      leaving.abort();
      await expect(first).rejects.toThrow();
      const repeat = await postJson(url, body, "sk-local-demo", withKey("left-2"));
      expect(repeat.headers.get("idempotent-replayed")).toBe("false");
      expect(billedOf(local)).toHaveLength(1);
    });
  });

  it("bills every repeat when configured to ignore Idempotency-Key, and records the key each bill carried", async () => {
    await withGateway({ idempotency: false }, async (local) => {
      const url = `${local.baseURL}/chat/completions`;
      const body = chatBody(MODEL, "Ignored key.");
      const first = await postJson(url, body, "sk-local-demo", withKey("ignored-1"));
      const second = await postJson(url, body, "sk-local-demo", withKey("ignored-1"));
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.headers.get("idempotent-replayed")).toBeNull();
      expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
      expect(billedOf(local).map((entry) => entry.idempotencyKey)).toEqual(["ignored-1", "ignored-1"]);
    });
  });

  it("replays the call that spent a key's last quota even though the key is now deactivated", async () => {
    await withGateway({ keys: [{ key: "sk-idem-quota", quota: 2 }], music: { completeAfterMs: 0 } }, async (local) => {
      const url = `${local.rootURL}/musicapi/api/generate`;
      const body = { prompt: "A last song", make_instrumental: true };
      const first = await postJson(url, body, "sk-idem-quota", withKey("last-1"));
      expect(first.status).toBe(200);
      expect(local.stats().keys[0]!.active).toBe(false);
      const repeat = await postJson(url, body, "sk-idem-quota", withKey("last-1"));
      expect(repeat.status).toBe(200);
      expect(repeat.headers.get("idempotent-replayed")).toBe("true");
      expect(await repeat.text()).toBe(await first.text());
      const fresh = await postJson(url, body, "sk-idem-quota", withKey("last-2"));
      expect(fresh.status).toBe(401);
      expect((await errorOf(fresh)).code).toBe("key_deactivated");
      expect(local.stats().keys[0]!.spentYuan).toBe(2);
    });
  });
});
