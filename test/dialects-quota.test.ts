// Quota as the spec says (section 5.4), in every dialect, over HTTP: a ¥0.5 key is billed the
// actual cost after each call, the last call may take it below zero and deactivates it, and from
// then on every interface answers 401; a prompt the balance cannot pay is refused up front. The
// client reads each as its typed error, whatever shape the relay gives it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callChat } from "../src/chat/call-chat.js";
import { KeyDeactivatedError, QuotaExceededError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { MusicClient } from "../src/gateway/music-client.js";
import { DIALECT_NAMES, startLocalGateway, type LocalGateway } from "../src/server/index.js";

const SPENDER = "sk-test-half-yuan";
const CRUMBS = "sk-test-crumbs";
const NO_RETRY = { attempts: 1 };

describe.each(DIALECT_NAMES)("quota in the %s dialect", (dialect) => {
  let gateway: LocalGateway;
  beforeAll(async () => {
    gateway = await startLocalGateway({
      config: {
        dialect,
        keys: [
          { key: SPENDER, name: "spender", quota: 0.5 },
          { key: CRUMBS, name: "crumbs", quota: 0.01 },
        ],
      },
    });
  });
  afterAll(async () => gateway.close());
  const stats = (name: string) => gateway.stats().keys.find((key) => key.name === name)!;

  it("deactivates a ¥0.5 key once spent; chat, models and music then fail with KeyDeactivatedError", async () => {
    const client = new GatewayClient({ apiKey: SPENDER, baseURL: gateway.baseURL });
    let calls = 0;
    let failure: unknown;
    try {
      for (; calls < 200 && failure === undefined; calls++) {
        await callChat(
          {
            model: "alpha-sonnet-4-6",
            messages: [{ role: "user", content: `Write a long story about harbour number ${calls}.` }],
            max_tokens: 2000,
          },
          { client, retry: NO_RETRY },
        ).catch((error: unknown) => {
          failure = error;
        });
      }
      expect(failure).toBeInstanceOf(KeyDeactivatedError);
      expect(calls).toBeGreaterThan(2);
      expect(stats("spender").remainingYuan).toBeLessThanOrEqual(0);
      expect(stats("spender").active).toBe(false);
      await expect(client.listModels()).rejects.toBeInstanceOf(KeyDeactivatedError);
      const music = new MusicClient({ apiKey: SPENDER, baseURL: gateway.baseURL });
      await expect(music.getLimit()).rejects.toBeInstanceOf(KeyDeactivatedError);
      await music.close();
    } finally {
      await client.close();
    }
  });

  it("refuses a prompt the balance cannot pay with a QuotaExceededError that is not retried", async () => {
    const client = new GatewayClient({ apiKey: CRUMBS, baseURL: gateway.baseURL });
    try {
      const error = await callChat(
        { model: "alpha-sonnet-4-6", messages: [{ role: "user", content: "Tell me about the sea. ".repeat(200) }] },
        { client },
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(QuotaExceededError);
      expect((error as QuotaExceededError).retryable).toBe(false);
      expect((error as Error).message).not.toMatch(/SVC_API_KEY/);
      expect(stats("crumbs")).toMatchObject({ spentYuan: 0, active: true });
    } finally {
      await client.close();
    }
  });
});
