import { describe, expect, it } from "vitest";
import { keyConfigSchema } from "../src/server/config.js";
import { KeyAccount } from "../src/server/key-account.js";
import { postJson, useGateway } from "./server-helpers.js";

describe("a billed entry", () => {
  const gateway = useGateway({ config: { keys: [{ key: "sk-local-demo", quota: 100 }] } });

  it("records a chat request's usage and price, fields in a fixed order", async () => {
    const response = await postJson(`${gateway().baseURL}/chat/completions`, {
      model: "alpha-sonnet-4-6",
      messages: [{ role: "user", content: "Hello there" }],
    });
    const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    const [entry] = gateway().stats().keys[0]!.billed;
    expect(Object.keys(entry!)).toEqual([
      "requestId",
      "kind",
      "model",
      "promptTokens",
      "completionTokens",
      "images",
      "reasoningTokens",
      "idempotencyKey",
      "yuan",
      "refunded",
    ]);
    expect(entry).toMatchObject({
      requestId: response.headers.get("x-request-id"),
      kind: "chat",
      model: "alpha-sonnet-4-6",
      promptTokens: body.usage.prompt_tokens,
      completionTokens: body.usage.completion_tokens,
      images: 0,
      refunded: false,
    });
    expect(entry!.yuan).toBeGreaterThan(0);
  });

  it("is the committed entry completed with its price, and is what the account lists", () => {
    const account = new KeyAccount(keyConfigSchema.parse({ key: "sk-entry", quota: 10 }));
    const entry = { requestId: "r1", kind: "music" as const, operation: "generate" as const };
    const billed = account.hold(2)!.commit(entry);
    expect(billed).toEqual({ ...entry, yuan: 2, refunded: false });
    expect(Object.keys(billed)).toEqual(["requestId", "kind", "operation", "yuan", "refunded"]);
    expect(account.stats().billed).toEqual([
      { requestId: "r1", kind: "music", operation: "generate", yuan: 2, refunded: false },
    ]);
  });
});
