import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  KeyDeactivatedError,
  QuotaExceededError,
  RateLimitError,
  SvcFlowError,
  UnknownModelError,
  UpstreamError,
} from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import type { ChatChunk, ChatRequest } from "../src/gateway/wire.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const MAIN_KEY = "sk-client-main";
const BROKE_KEY = "sk-client-broke";
const POOR_KEY = "sk-client-poor";
const NARROW_KEY = "sk-client-narrow";

let gateway: LocalGateway;
const clients: GatewayClient[] = [];

beforeAll(async () => {
  gateway = await startLocalGateway({
    config: {
      keys: [
        { key: MAIN_KEY },
        { key: BROKE_KEY, quota: 0 },
        { key: POOR_KEY, quota: 0.000001 },
        { key: NARROW_KEY, models: ["beta-4o-mini"] },
      ],
      faults: {
        seed: 7,
        models: {
          "alpha-opus-4-8": { errorRate: 1, status: 503 },
          "beta-4o": { rateLimitRate: 1, retryAfterS: 0.05 },
          "gamma-2.5-flash-lite": { dropRate: 1 },
        },
      },
    },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await gateway.close();
});

function client(apiKey = MAIN_KEY): GatewayClient {
  const created = new GatewayClient({ apiKey, baseURL: gateway.baseURL });
  clients.push(created);
  return created;
}

const ask = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  messages: [{ role: "user", content: "Say hello in five words." }],
  ...extra,
});

async function failureOf(promise: Promise<unknown>): Promise<SvcFlowError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcFlowError) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

async function drain(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("GatewayClient against the local gateway", () => {
  it("derives rootURL from baseURL", () => {
    expect(client().rootURL).toBe(gateway.rootURL);
  });

  it("completes a chat and keeps the response ids", async () => {
    const { response, ids } = await client().chat(ask("beta-4o-mini"));
    expect(response.choices[0]?.message.content).toBeTruthy();
    expect(response.usage!.total_tokens).toBe(response.usage!.prompt_tokens + response.usage!.completion_tokens);
    expect(ids.requestId).toBeTruthy();
    expect(ids.auditId).toBeTruthy();
    expect(ids.backendId).toBeTruthy();
  });

  it("streams a chat to its finish reason and a final usage chunk", async () => {
    const stream = await client().chatStream(ask("alpha-sonnet-4-6"));
    expect(stream.ids.requestId).toBeTruthy();
    const chunks = await drain(stream);
    expect(chunks.some((chunk) => chunk.choices.some((choice) => choice.finish_reason === "stop"))).toBe(true);
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
    const billed = gateway
      .stats()
      .keys.flatMap((key) => key.billed)
      .map((entry) => entry.requestId);
    expect(billed).toContain(stream.ids.requestId);
  });

  it("reads a stream piece by piece to the same chunks iterating gives, then undefined", async () => {
    const request = { ...ask("alpha-sonnet-4-6"), max_tokens: 300 };
    const iterated = await drain(await client().chatStream(request));
    const stream = await client().chatStream(request);
    const read: ChatChunk[] = [];
    for (let chunks = await stream.read(); chunks !== undefined; chunks = await stream.read()) {
      expect(chunks.length).toBeGreaterThan(0);
      read.push(...chunks);
    }
    const texts = (chunks: ChatChunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(texts(read)).toBe(texts(iterated));
    expect(read.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
    expect(await stream.read()).toBeUndefined();
  });

  it("lets a stream be iterated only once", async () => {
    const stream = await client().chatStream({ ...ask("alpha-sonnet-4-6"), max_tokens: 300 });
    expect((await drain(stream)).length).toBeGreaterThan(1);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it("lets go of a long-lived caller signal after each request, streamed or not", async () => {
    const controller = new AbortController();
    for (let call = 0; call < 5; call++) await client().chat(ask("beta-4o-mini"), { signal: controller.signal });
    await drain(await client().chatStream(ask("beta-4o-mini"), { signal: controller.signal }));
    const stopped = await client().chatStream(ask("beta-4o-mini"), { signal: controller.signal });
    await stopped.cancel();
    expect(
      await failureOf(client().chat(ask("beta-5", { max_tokens: 100 }), { signal: controller.signal })),
    ).toBeInstanceOf(BadRequestError);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("lists the models the key may call", async () => {
    const { models, ids } = await client(NARROW_KEY).listModels();
    expect(models.data.map((model) => model.id)).toEqual(["beta-4o-mini"]);
    expect(ids.requestId).toBeTruthy();
  });

  it("throws AuthenticationError for a wrong key, without the key in it", async () => {
    const wrongKey = "sk-client-wrong-0123456789";
    const error = await failureOf(client(wrongKey).chat(ask("beta-4o-mini")));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.requestId).toBeTruthy();
    expect(`${error.message} ${error.stack}`).not.toContain(wrongKey);
  });

  it("throws KeyDeactivatedError for a key whose quota is spent", async () => {
    const error = await failureOf(client(BROKE_KEY).listModels());
    expect(error).toBeInstanceOf(KeyDeactivatedError);
    expect(error.retryable).toBe(false);
  });

  it("throws a non-retryable QuotaExceededError when the quota cannot cover the call", async () => {
    const error = await failureOf(client(POOR_KEY).chat(ask("alpha-sonnet-4-6")));
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ status: 429, retryable: false });
  });

  it("throws BadRequestError for max_tokens sent to a beta-5 model", async () => {
    const error = await failureOf(client().chat(ask("beta-5", { max_tokens: 100 })));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toContain("max_completion_tokens");
  });

  it("throws UnknownModelError for a model the key may not call", async () => {
    const error = await failureOf(client(NARROW_KEY).chat(ask("beta-4o")));
    expect(error).toBeInstanceOf(UnknownModelError);
  });

  it("throws a retryable UpstreamError for an injected 503", async () => {
    const error = await failureOf(client().chat(ask("alpha-opus-4-8")));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(error.requestId).toBeTruthy();
  });

  it("throws RateLimitError with the gateway's Retry-After for an injected 429", async () => {
    const error = await failureOf(client().chatStream(ask("beta-4o")));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterS).toBe(0.05);
  });

  it("surfaces a stream cut by the gateway as a retryable error, not as a short reply", async () => {
    const stream = await client().chatStream(ask("gamma-2.5-flash-lite"));
    const error = await failureOf(drain(stream));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ code: "connection_error", retryable: true });
  });
});
