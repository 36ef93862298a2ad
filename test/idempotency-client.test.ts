import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { BadRequestError, ParameterError, UpstreamError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { MusicClient } from "../src/gateway/music-client.js";
import type { ChatChunk, ChatRequest } from "../src/gateway/wire.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { billedOf, recordingDispatcher, startCuttingProxy, type CuttingProxy } from "./idempotency-harness.js";

const KEY = "sk-local-demo";
const MODEL = "alpha-sonnet-4-6";
let gateway: LocalGateway;
let failingMusic: LocalGateway;
let proxy: CuttingProxy;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  [gateway, failingMusic] = await Promise.all([
    startLocalGateway({ config: { music: { completeAfterMs: 20, clipSeconds: 1 } } }),
    startLocalGateway({ config: { music: { completeAfterMs: 20, failRate: 1, clipSeconds: 1 } } }),
  ]);
  proxy = await startCuttingProxy(gateway);
});

afterAll(async () => {
  for (const close of closers) await close();
  await proxy.close();
  await Promise.all([gateway.close(), failingMusic.close()]);
});

function client(baseURL = gateway.baseURL): GatewayClient {
  const created = new GatewayClient({ apiKey: KEY, baseURL });
  closers.push(() => created.close());
  return created;
}

function request(content: string): ChatRequest {
  return { model: MODEL, messages: [{ role: "user", content }], max_tokens: 60 };
}

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("GatewayClient idempotency keys", () => {
  it("sends idempotencyKey as the Idempotency-Key header and reports replays", async () => {
    const recorder = recordingDispatcher();
    closers.push(recorder.close);
    const sender = new GatewayClient({ apiKey: KEY, baseURL: gateway.baseURL, dispatcher: recorder.dispatcher });
    const before = billedOf(gateway).length;
    const first = await sender.chat(request("Replay me."), { idempotencyKey: "client-1" });
    const second = await sender.chat(request("Replay me."), { idempotencyKey: "client-1" });
    expect(recorder.sent.map((headers) => headers["idempotency-key"])).toEqual(["client-1", "client-1"]);
    expect(recorder.sent[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect([first.replayed, second.replayed]).toEqual([false, true]);
    expect(second.response).toEqual(first.response);
    expect(second.ids.requestId).toBe(first.ids.requestId);
    expect(billedOf(gateway).length - before).toBe(1);
  });

  it("never lets per-call headers replace the key or the framing", async () => {
    const sender = client();
    await expect(sender.chat(request("x"), { headers: { Authorization: "Bearer sk-someone-else" } })).rejects.toThrow(
      ParameterError,
    );
    await expect(sender.chat(request("x"), { headers: { "Content-Length": "1" } })).rejects.toThrow(
      /cannot be set per call/,
    );
    await expect(sender.chat(request("x"), { idempotencyKey: "has space" })).rejects.toThrow(ParameterError);
    await expect(sender.chat(request("x"), { idempotencyKey: "" })).rejects.toThrow(/idempotencyKey/);
  });

  it("passes other per-call headers through", async () => {
    const recorder = recordingDispatcher();
    closers.push(recorder.close);
    const sender = new GatewayClient({ apiKey: KEY, baseURL: gateway.baseURL, dispatcher: recorder.dispatcher });
    await sender.chat(request("Headers."), { headers: { "X-Trace-Id": "t-1" } });
    expect(recorder.sent[0]).toMatchObject({ "x-trace-id": "t-1", authorization: `Bearer ${KEY}` });
  });

  it("maps a reused key to BadRequestError with code idempotency_key_reused", async () => {
    const sender = client();
    await sender.chat(request("One body."), { idempotencyKey: "client-reused" });
    const error = await sender
      .chat(request("Another body."), { idempotencyKey: "client-reused" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ code: "idempotency_key_reused", status: 422 });
  });

  it("bills a cut JSON answer once when it is retried with the same key", async () => {
    const sender = client(proxy.baseURL);
    const before = billedOf(gateway).length;
    proxy.cutNext(1);
    await expect(sender.chat(request("Lost answer."), { idempotencyKey: "cut-json-1" })).rejects.toThrow(UpstreamError);
    expect(billedOf(gateway).length - before).toBe(1);
    const retried = await sender.chat(request("Lost answer."), { idempotencyKey: "cut-json-1" });
    expect(retried.replayed).toBe(true);
    expect(retried.ids.requestId).toBe(billedOf(gateway).at(-1)!.requestId);
    expect(billedOf(gateway).length - before).toBe(1);
  });

  it("bills a cut stream once when it is retried with the same key, and replays all of it", async () => {
    const sender = client(proxy.baseURL);
    const streamed = { ...request("Lost stream."), stream: true };
    const before = billedOf(gateway).length;
    proxy.cutNext(1, { keepHead: true });
    const cut = await sender.chatStream(streamed, { idempotencyKey: "cut-stream-1" });
    await expect(collect(cut)).rejects.toThrow();
    expect(billedOf(gateway).length - before).toBe(1);
    const retried = await sender.chatStream(streamed, { idempotencyKey: "cut-stream-1" });
    expect(retried.replayed).toBe(true);
    const chunks = await collect(retried);
    expect(
      chunks.some((chunk) =>
        chunk.choices.some((choice) => choice.finish_reason === "stop" || choice.finish_reason === "length"),
      ),
    ).toBe(true);
    expect(chunks.at(-1)!.usage?.total_tokens).toBeGreaterThan(0);
    expect(billedOf(gateway).length - before).toBe(1);
  });

  it("bills twice without a key when the answer is lost (what the key prevents)", async () => {
    const sender = client(proxy.baseURL);
    const before = billedOf(gateway).length;
    proxy.cutNext(1);
    await expect(sender.chat(request("No key."))).rejects.toThrow(UpstreamError);
    const retried = await sender.chat(request("No key."));
    expect(retried.replayed).toBe(false);
    expect(billedOf(gateway).length - before).toBe(2);
  });
});

describe("MusicClient idempotency keys", () => {
  function music(target: LocalGateway, recorder?: CostLedger): MusicClient {
    const created = new MusicClient({
      apiKey: KEY,
      baseURL: target.baseURL,
      ...(recorder === undefined ? {} : { recorder }),
    });
    closers.push(() => created.close());
    return created;
  }
  const generated = (target: LocalGateway) => billedOf(target).filter((entry) => entry.operation === "generate").length;

  it("replays a generate with the same key: the same clip ids, billed once, counted once by the ledger", async () => {
    const ledger = new CostLedger();
    const client = music(gateway, ledger);
    const before = generated(gateway);
    const first = await client.generate({ prompt: "A rainy jingle", instrumental: true, idempotencyKey: "music-1" });
    const second = await client.generate({ prompt: "A rainy jingle", instrumental: true, idempotencyKey: "music-1" });
    expect(second.replayed).toBe(true);
    expect(second.clips.map((clip) => clip.id)).toEqual(first.clips.map((clip) => clip.id));
    expect(generated(gateway) - before).toBe(1);
    expect(ledger.summary().totalYuan).toBe(2);
    expect(ledger.entries().map((entry) => entry.alreadyRecorded ?? false)).toEqual([false, true]);
  });

  it("replays lyrics and refuses a reused key with another prompt", async () => {
    const client = music(gateway);
    const first = await client.lyrics({ prompt: "Rain on a tin roof", idempotencyKey: "lyrics-1" });
    const second = await client.lyrics({ prompt: "Rain on a tin roof", idempotencyKey: "lyrics-1" });
    expect(second).toMatchObject({ replayed: true, lyrics: first.lyrics });
    await expect(client.lyrics({ prompt: "Sun on a tin roof", idempotencyKey: "lyrics-1" })).rejects.toMatchObject({
      code: "idempotency_key_reused",
    });
  });

  it("runs a repeat again once the first job failed and was refunded", async () => {
    const client = music(failingMusic);
    const first = await client.generate({ prompt: "A doomed song", idempotencyKey: "music-refund-1" });
    await expect(
      client.waitForClips(
        first.clips.map((clip) => clip.id),
        { pollIntervalMs: 10, timeoutMs: 5_000 },
      ),
    ).rejects.toThrow();
    const again = await client.generate({ prompt: "A doomed song", idempotencyKey: "music-refund-1" });
    expect(again.replayed).toBe(false);
    expect(again.clips[0]!.id).not.toBe(first.clips[0]!.id);
  });
});
