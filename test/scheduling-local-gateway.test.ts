import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QuotaExceededError, RateLimitError, type SvcFlowError, UpstreamError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import type { ChatChunk, ChatRequest } from "../src/gateway/wire.js";
import { RetryBudget } from "../src/scheduling/retry-budget.js";
import { withRetry } from "../src/scheduling/retry.js";
import { Scheduler } from "../src/scheduling/scheduler.js";
import { callChat } from "../src/chat/call-chat.js";
import type { ChatEvent } from "../src/chat/chat-reply.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

// Retries and lanes against injected faults. Delays are kept to milliseconds with a small
// minDelayMs; nothing here measures time.

const KEYS = {
  retry: "sk-sched-retry",
  poor: "sk-sched-poor",
  lanes: "sk-sched-lanes",
  control: "sk-sched-control",
} as const;

let gateway: LocalGateway;
const clients: GatewayClient[] = [];

beforeAll(async () => {
  gateway = await startLocalGateway({
    config: {
      keys: [
        { key: KEYS.retry, name: "retry" },
        { key: KEYS.poor, name: "poor", quota: 0.000001 },
        { key: KEYS.lanes, name: "lanes", concurrency: 2 },
        { key: KEYS.control, name: "control", concurrency: 2 },
      ],
      faults: {
        seed: 3,
        models: {
          "alpha-opus-4-8": { errorRate: 1, status: 503 },
          "beta-4o": { rateLimitRate: 0.6, retryAfterS: 0.03 },
          "gamma-2.5-flash": { dropRate: 0.6 },
          "beta-4o-mini": { chunkDelayMs: 3 },
        },
      },
    },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await gateway.close();
});

function client(apiKey: string): GatewayClient {
  const created = new GatewayClient({ apiKey, baseURL: gateway.baseURL });
  clients.push(created);
  return created;
}

function keyStats(name: string) {
  const stats = gateway.stats().keys.find((key) => key.name === name);
  if (stats === undefined) throw new Error(`no stats for ${name}`);
  return stats;
}

const ask = (model: string): ChatRequest => ({
  model,
  messages: [{ role: "user", content: "Write one short sentence." }],
});

async function drainEvents(stream: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function drain(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const fast = { minDelayMs: 1, maxDelayMs: 5 };

describe("retries and lanes against the local gateway's faults", () => {
  it("retries injected 429s, waiting at least their Retry-After, until the call succeeds", async () => {
    const gatewayClient = client(KEYS.retry);
    const retries: Array<{ error: SvcFlowError; delayMs: number }> = [];
    for (let call = 0; call < 4; call++) {
      const { response } = await withRetry(
        () => gatewayClient.chat(ask("beta-4o")),
        { ...fast, attempts: 10 },
        {
          onRetry: (error, _attempt, delayMs) => retries.push({ error, delayMs }),
        },
      );
      expect(response.choices[0]?.finish_reason).toBe("stop");
    }
    expect(retries.length).toBeGreaterThan(0);
    for (const { error, delayMs } of retries) {
      expect(error).toBeInstanceOf(RateLimitError);
      expect(delayMs).toBeGreaterThanOrEqual(30);
    }
  });

  it("gives up on a model that always fails after exactly `attempts` requests, none billed", async () => {
    const before = keyStats("retry");
    const error = await withRetry(() => client(KEYS.retry).chat(ask("alpha-opus-4-8")), { ...fast, attempts: 3 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    const after = keyStats("retry");
    expect((after.requests.byStatus["503"] ?? 0) - (before.requests.byStatus["503"] ?? 0)).toBe(3);
    expect(after.billed.length).toBe(before.billed.length);
  });

  it("sends insufficient_quota once and does not retry it", async () => {
    const error = await withRetry(() => client(KEYS.poor).chat(ask("alpha-sonnet-4-6")), fast).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(keyStats("poor").requests.total).toBe(1);
  });

  it("retries streams cut mid-way and bills only the ones that completed", async () => {
    const gatewayClient = client(KEYS.retry);
    const before = keyStats("retry").billed.length;
    let cuts = 0;
    for (let call = 0; call < 4; call++) {
      const chunks = await withRetry(
        async () => drain(await gatewayClient.chatStream(ask("gamma-2.5-flash"))),
        { ...fast, attempts: 20 },
        { onRetry: (error) => void (error.code === "connection_error" && cuts++) },
      );
      expect(chunks.some((chunk) => chunk.choices.some((choice) => choice.finish_reason === "stop"))).toBe(true);
    }
    expect(cuts).toBeGreaterThan(0);
    expect(keyStats("retry").billed.length).toBe(before + 4);
  });

  it("keeps one budget across fallbacks, so the gateway sees at most the budget's requests", async () => {
    const before = keyStats("retry").requests.total;
    const budget = new RetryBudget(5);
    const gatewayClient = client(KEYS.retry);
    for (const model of ["alpha-opus-4-8", "alpha-opus-4-8", "alpha-opus-4-8"]) {
      await withRetry(() => gatewayClient.chat(ask(model)), { ...fast, attempts: 4 }, { budget }).catch(
        () => undefined,
      );
    }
    expect(keyStats("retry").requests.total - before).toBe(5);
  });

  it("holds lane slots until streams end, so the key's concurrency limit is never hit", async () => {
    const scheduler = new Scheduler({ concurrency: 2 });
    const gatewayClient = client(KEYS.lanes);
    const results = await Promise.all(
      Array.from({ length: 6 }, async () =>
        drainEvents(
          await callChat(
            { model: "beta-4o-mini", messages: ask("beta-4o-mini").messages, stream: true },
            { client: gatewayClient, scheduler },
          ),
        ),
      ),
    );
    expect(results).toHaveLength(6);
    expect(keyStats("lanes").requests.rateLimited).toBe(0);
  });

  it("hits the key's concurrency limit without lanes (the control for the test above)", async () => {
    const gatewayClient = client(KEYS.control);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, async () => drain(await gatewayClient.chatStream(ask("beta-4o-mini")))),
    );
    expect(outcomes.some((outcome) => outcome.status === "rejected" && outcome.reason instanceof RateLimitError)).toBe(
      true,
    );
  });
});
