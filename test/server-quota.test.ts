import { describe, expect, it } from "vitest";
import { roundYuan, tokenCost } from "../src/catalog/prices.js";
import { chatResponseSchema, usageSchema } from "../src/gateway/wire.js";
import { chatBody, errorOf, getWithKey, postJson, sseEvents, useGateway } from "./server-helpers.js";

const PRICE = { input: 1.5, output: 4 };

const gateway = useGateway({
  config: {
    keys: [
      { key: "sk-test-ledger", name: "ledger", quota: 1000 },
      { key: "sk-test-images", name: "images", quota: 0.84 },
      { key: "sk-test-tight", name: "tight", quota: 0.5 },
      { key: "sk-test-music", name: "music", quota: 2 },
      { key: "sk-test-crumbs", name: "crumbs", quota: 0.05 },
    ],
    prices: { chat: { "beta-4o-mini": PRICE } },
    music: { completeAfterMs: 0 },
  },
});
const chatUrl = () => `${gateway().baseURL}/chat/completions`;
const keyStats = (name: string) =>
  gateway()
    .stats()
    .keys.find((key) => key.name === name)!;

function imagesIn(content: string | null | undefined): number {
  return (content ?? "").match(/!\[[^\]]*\]\(data:image\//g)?.length ?? 0;
}

describe("local gateway billing", () => {
  it("bills tokens at the configured price, exactly, for streamed and plain requests", async () => {
    let expected = 0;
    const requestIds: string[] = [];
    for (const prompt of ["One.", "Two words please.", "A slightly longer question about the moon?"]) {
      const response = await postJson(chatUrl(), chatBody("beta-4o-mini", prompt), "sk-test-ledger");
      const { usage } = chatResponseSchema.parse(await response.json());
      expected = roundYuan(
        expected +
          roundYuan(tokenCost(usage!.prompt_tokens, PRICE.input) + tokenCost(usage!.completion_tokens, PRICE.output)),
      );
      requestIds.push(response.headers.get("x-request-id")!);

      const streamed = await postJson(
        chatUrl(),
        chatBody("beta-4o-mini", prompt, { stream: true, stream_options: { include_usage: true } }),
        "sk-test-ledger",
      );
      const events = sseEvents(await streamed.text()) as { usage?: unknown }[];
      const last = usageSchema.parse(events.findLast((event) => typeof event === "object" && event.usage)!.usage);
      expected = roundYuan(
        expected +
          roundYuan(tokenCost(last.prompt_tokens, PRICE.input) + tokenCost(last.completion_tokens, PRICE.output)),
      );
      requestIds.push(streamed.headers.get("x-request-id")!);
    }
    const stats = keyStats("ledger");
    expect(stats.spentYuan).toBe(expected);
    expect(stats.billed.map((entry) => entry.requestId)).toEqual(requestIds);
    expect(stats.remainingYuan).toBe(roundYuan(1000 - expected));
  });

  it("bills nothing for an unpriced model", async () => {
    const before = keyStats("ledger").spentYuan;
    expect((await postJson(chatUrl(), chatBody("gamma-2.5-flash"), "sk-test-ledger")).status).toBe(200);
    expect(keyStats("ledger").spentYuan).toBe(before);
    expect(keyStats("ledger").billed.at(-1)).toMatchObject({ model: "gamma-2.5-flash", yuan: 0 });
  });

  it("bills an image model per image, not per token", async () => {
    const response = await postJson(
      chatUrl(),
      chatBody("gamma-2.5-flash-image", "A red kite over a beach"),
      "sk-test-images",
    );
    const body = chatResponseSchema.parse(await response.json());
    const images = imagesIn(body.choices[0]!.message.content);
    expect(images).toBeGreaterThan(0);
    expect(keyStats("images").spentYuan).toBe(roundYuan(images * 0.42));
  });

  it("bills the last call in full, taking the balance below zero, and deactivates the key then", async () => {
    const first = await postJson(chatUrl(), chatBody("gamma-2.5-flash-image", "A lighthouse at dawn"), "sk-test-tight");
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(keyStats("tight").active).toBe(true);
    const second = await postJson(
      chatUrl(),
      chatBody("gamma-2.5-flash-image", "A lighthouse at dusk"),
      "sk-test-tight",
    );
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    expect(keyStats("tight").remainingYuan).toBeLessThan(0);
    expect(keyStats("tight").active).toBe(false);
    const third = await postJson(
      chatUrl(),
      chatBody("gamma-2.5-flash-image", "A lighthouse at night"),
      "sk-test-tight",
    );
    expect(third.status).toBe(401);
    expect((await errorOf(third)).code).toBe("key_deactivated");
  });

  it("answers 429 insufficient_quota, unbilled and not to be retried, when the balance cannot pay even the prompt", async () => {
    const prompt = "Tell me about the moon. ".repeat(40);
    const response = await postJson(chatUrl(), chatBody("beta-4o-mini", prompt), "sk-test-crumbs");
    expect(response.status).toBe(429);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect((await errorOf(response)).code).toBe("insufficient_quota");
    expect(keyStats("crumbs")).toMatchObject({ spentYuan: 0, active: true });
  });

  it("deactivates a key once its quota is spent; every interface then answers 401 key_deactivated", async () => {
    for (const prompt of ["A cat", "A dog"]) {
      const response = await postJson(chatUrl(), chatBody("gamma-2.5-flash-image", prompt), "sk-test-images");
      if (response.status !== 200) break;
      await response.arrayBuffer();
    }
    const stats = keyStats("images");
    expect(stats.remainingYuan).toBe(0);
    expect(stats.active).toBe(false);
    const answers = await Promise.all([
      postJson(chatUrl(), chatBody("beta-4o"), "sk-test-images"),
      getWithKey(`${gateway().baseURL}/models`, "sk-test-images"),
      getWithKey(`${gateway().rootURL}/musicapi/api/get_limit`, "sk-test-images"),
      postJson(`${gateway().rootURL}/musicapi/api/generate`, { prompt: "a tune" }, "sk-test-images"),
    ]);
    for (const response of answers) {
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe("key_deactivated");
      expect(response.headers.get("x-request-id")).toBeTruthy();
      expect(response.headers.get("x-svc-audit-id")).toBeTruthy();
      expect(response.headers.get("x-svc-backend-id")).toBeTruthy();
    }
  });

  it("deactivates a key that a music call spends to zero", async () => {
    const response = await postJson(
      `${gateway().rootURL}/musicapi/api/generate`,
      { prompt: "lofi beat" },
      "sk-test-music",
    );
    expect(response.status).toBe(200);
    expect(keyStats("music")).toMatchObject({ spentYuan: 2, remainingYuan: 0, active: false });
    expect((await getWithKey(`${gateway().baseURL}/models`, "sk-test-music")).status).toBe(401);
  });
});

describe("local gateway authentication", () => {
  it.each([
    ["no Authorization header", undefined],
    ["a wrong key", "Bearer sk-wrong"],
    ["a malformed header", "Basic abc"],
  ])("answers 401 invalid_api_key with the id headers for %s", async (_name, header) => {
    for (const [method, path] of [
      ["POST", "/chat/completions"],
      ["GET", "/models"],
    ] as const) {
      const response = await fetch(`${gateway().baseURL}${path}`, {
        method,
        headers: header ? { authorization: header } : {},
        ...(method === "POST" ? { body: JSON.stringify(chatBody("beta-4o")) } : {}),
      });
      expect(response.status).toBe(401);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_api_key");
      expect(error.message).not.toMatch(/sk-wrong/);
      for (const name of ["x-request-id", "x-svc-audit-id", "x-svc-backend-id"])
        expect(response.headers.get(name)).toBeTruthy();
    }
  });

  it("counts requests per key by status", async () => {
    const before = keyStats("ledger").requests.byStatus["404"] ?? 0;
    await (await postJson(chatUrl(), chatBody("no-such-model"), "sk-test-ledger")).arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(keyStats("ledger").requests.byStatus["404"]).toBe(before + 1);
  });

  it("never exposes a key's secret in its stats", () => {
    expect(JSON.stringify(gateway().stats())).not.toMatch(/sk-test/);
  });
});
