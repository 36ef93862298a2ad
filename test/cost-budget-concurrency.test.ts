import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roundYuan } from "../src/catalog/prices.js";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { BudgetExceededError, SvcFlowError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { MusicClient } from "../src/gateway/music-client.js";
import type { UsageRecorder } from "../src/gateway/usage-recorder.js";
import type { ChatRequest } from "../src/gateway/wire.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const KEY = "sk-test-cost-budget";

let gateway: LocalGateway;
let client: GatewayClient;
let music: MusicClient;

beforeAll(async () => {
  gateway = await startLocalGateway({ config: { keys: [{ key: KEY, name: "budget", quota: 1000 }] } });
  client = new GatewayClient({ apiKey: KEY, baseURL: gateway.baseURL, connections: 32 });
  music = new MusicClient({ apiKey: KEY, rootURL: gateway.rootURL });
});

afterAll(async () => {
  await client.close();
  await music.close();
  await gateway.close();
});

function keyStats() {
  const stats = gateway.stats().keys.find((key) => key.name === "budget");
  if (!stats) throw new Error("the test key is missing from the gateway's stats");
  return stats;
}

async function quotaLeft(): Promise<number> {
  const { report } = await music.getLimit();
  return report.svc_key_quota ?? Number.NaN;
}

/** One call the way ChatGateway makes it: reserve the bound, send, settle with the reported usage. */
async function call(ledger: CostLedger, request: ChatRequest): Promise<void> {
  const reservation = ledger.reserve({ kind: "chat", request });
  try {
    const { response, ids } = await client.chat(request);
    reservation.settle({
      status: "ok",
      usage: response.usage,
      servedModel: response.model,
      ...(ids.requestId === undefined ? {} : { requestId: ids.requestId }),
    });
  } catch (error) {
    reservation.settle({ status: "failed", errorCode: error instanceof SvcFlowError ? error.code : "unknown" });
    throw error;
  }
}

function request(index: number): ChatRequest {
  return {
    model: "alpha-sonnet-4-6",
    messages: [{ role: "user", content: `Write a long story about lighthouse number ${index}, with many details.` }],
    max_tokens: 120,
  };
}

describe("a budget under concurrency", () => {
  it("lets exactly 10 of 100 concurrent calls through when the cap allows 10, and sends none of the rest", async () => {
    const bound = new CostLedger().estimate({ kind: "chat", request: request(0) }).yuan!;
    const cap = roundYuan(bound * 10);
    const ledger = new CostLedger({ maxYuan: cap });
    const quotaBefore = await quotaLeft();
    const requestsBefore = keyStats().requests.total;

    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, index) => call(ledger, request(index % 10))),
    );

    const sent = results.filter((result) => result.status === "fulfilled");
    const refused = results.filter((result) => result.status === "rejected");
    expect(sent).toHaveLength(10);
    expect(refused).toHaveLength(90);
    for (const result of refused) expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BudgetExceededError);
    // The gateway saw the 10 calls and nothing else.
    expect(keyStats().requests.total - requestsBefore).toBe(10);
    expect(ledger.spentYuan).toBeLessThanOrEqual(cap);
    expect(ledger.heldYuan).toBe(0);
    expect(ledger.entries()).toHaveLength(10);
    const drop = roundYuan(quotaBefore - (await quotaLeft()));
    expect(Math.abs(drop - ledger.spentYuan)).toBeLessThan(0.0001);
  });

  it("holds the cap when calls start at different times and settles free room for later ones", async () => {
    const bound = new CostLedger().estimate({ kind: "chat", request: request(0) }).yuan!;
    const cap = roundYuan(bound * 10);
    const ledger = new CostLedger({ maxYuan: cap });
    const spentBefore = keyStats().spentYuan;
    let peak = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, async (_, index) => {
        // Waves of ten, so later calls reserve while earlier ones settle.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(index / 10) * 15));
        const result = call(ledger, request(index % 10));
        peak = Math.max(peak, roundYuan(ledger.spentYuan + ledger.heldYuan));
        return result;
      }),
    );
    const sent = results.filter((result) => result.status === "fulfilled").length;
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toBeInstanceOf(BudgetExceededError);
    }
    expect(peak).toBeLessThanOrEqual(cap);
    expect(ledger.spentYuan).toBeLessThanOrEqual(cap);
    // Replies cost less than their bound, so settled calls free room and more than 10 get through.
    expect(sent).toBeGreaterThanOrEqual(10);
    expect(sent).toBeLessThan(100);
    expect(ledger.entries()).toHaveLength(sent);
    expect(Math.abs(roundYuan(keyStats().spentYuan - spentBefore) - ledger.spentYuan)).toBeLessThan(0.0001);
  });

  it("holds through ChatGateway: 100 concurrent invokes, refused ones never reach the gateway", async () => {
    const prompt = "Write a long story about a lighthouse keeper, with many details.";
    const sample: ChatRequest = {
      model: "alpha-sonnet-4-6",
      messages: [{ role: "user", content: prompt }],
      max_tokens: 120,
    };
    const cap = roundYuan(new CostLedger().estimate({ kind: "chat", request: sample }).yuan! * 10);
    const ledger = new CostLedger({ maxYuan: cap });
    let peak = 0;
    let reserved = 0;
    // Watches the ledger from outside: after every reservation, spent plus held is within the cap.
    const watched: UsageRecorder = {
      reserve(operation) {
        const reservation = ledger.reserve(operation);
        reserved += 1;
        peak = Math.max(peak, roundYuan(ledger.spentYuan + ledger.heldYuan));
        return reservation;
      },
    };
    const model = new ChatGateway({
      model: "alpha-sonnet-4-6",
      apiKey: KEY,
      baseURL: gateway.baseURL,
      maxTokens: 120,
      ledger: watched,
      onWarning: () => undefined,
    });
    const before = keyStats();
    try {
      const results = await Promise.allSettled(Array.from({ length: 100 }, () => model.invoke(prompt)));
      const sent = results.filter((result) => result.status === "fulfilled").length;
      for (const result of results) {
        if (result.status === "rejected") expect(result.reason).toBeInstanceOf(BudgetExceededError);
      }
      const after = keyStats();
      expect(sent).toBeGreaterThanOrEqual(10);
      expect(sent).toBeLessThan(100);
      expect(reserved).toBe(sent);
      expect(after.requests.total - before.requests.total).toBe(sent);
      expect(peak).toBeLessThanOrEqual(cap);
      expect(ledger.spentYuan).toBeLessThanOrEqual(cap);
      expect(Math.abs(roundYuan(after.spentYuan - before.spentYuan) - ledger.spentYuan)).toBeLessThan(0.0001);
    } finally {
      await model.close();
    }
  });
});
