import { describe, expect, it } from "vitest";
import { startLocalGateway } from "../src/server/index.js";
import { chatBody, errorOf, getWithKey, postJson, sseEvents, useGateway } from "./server-helpers.js";

const gateway = useGateway({
  config: {
    keys: [
      { key: "sk-test-rpm", name: "rpm", rpm: 3 },
      { key: "sk-test-conc", name: "conc", concurrency: 1 },
      { key: "sk-test-faults", name: "faults" },
    ],
    prices: { chat: { "beta-4o": { input: 1, output: 1 }, "beta-4o-mini": { input: 1, output: 1 } } },
    faults: {
      seed: 3,
      models: {
        "alpha-opus-4-8": { errorRate: 1, status: 503 },
        "alpha-haiku-4-5-20251001": { rateLimitRate: 1, retryAfterS: 0.05 },
        "beta-4o-mini": { dropRate: 1 },
        "gamma-2.5-flash-lite": { latencyMs: 150 },
        "beta-4o": { chunkDelayMs: 40 },
      },
    },
  },
});
const chatUrl = () => `${gateway().baseURL}/chat/completions`;
const keyStats = (name: string) =>
  gateway()
    .stats()
    .keys.find((key) => key.name === name)!;

describe("local gateway rate and concurrency limits", () => {
  it("answers 429 rate_limit_exceeded with Retry-After past the key's rpm", async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let index = 0; index < 4; index++) {
      const response = await getWithKey(`${gateway().baseURL}/models`, "sk-test-rpm");
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await errorOf(limited!)).code).toBe("rate_limit_exceeded");
    const retryAfterS = Number(limited!.headers.get("retry-after"));
    expect(retryAfterS).toBeGreaterThan(0);
    expect(retryAfterS).toBeLessThanOrEqual(60);
    expect(Number(limited!.headers.get("retry-after-ms"))).toBe(Math.round(retryAfterS * 1000));
    expect(keyStats("rpm").requests.rateLimited).toBe(1);
  });

  it("answers 429 concurrency_limit_exceeded while the key's only slot holds an open stream", async () => {
    const streaming = await postJson(
      chatUrl(),
      chatBody("beta-4o", "Write a long paragraph about rivers.", { stream: true }),
      "sk-test-conc",
    );
    expect(streaming.status).toBe(200);
    const second = await postJson(chatUrl(), chatBody("gamma-2.5-flash"), "sk-test-conc");
    expect(second.status).toBe(429);
    expect((await errorOf(second)).code).toBe("concurrency_limit_exceeded");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    await streaming.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await postJson(chatUrl(), chatBody("gamma-2.5-flash"), "sk-test-conc")).status).toBe(200);
  });
});

describe("local gateway fault injection", () => {
  it("answers the configured 5xx with upstream_error, unbilled", async () => {
    const response = await postJson(chatUrl(), chatBody("alpha-opus-4-8"), "sk-test-faults");
    expect(response.status).toBe(503);
    expect((await errorOf(response)).code).toBe("upstream_error");
    expect(response.headers.get("x-svc-backend-id")).toBe("local-alpha-1");
    expect(keyStats("faults").billed).toHaveLength(0);
  });

  it("answers an injected 429 with the configured fractional Retry-After", async () => {
    const response = await postJson(chatUrl(), chatBody("alpha-haiku-4-5-20251001"), "sk-test-faults");
    expect(response.status).toBe(429);
    expect((await errorOf(response)).code).toBe("rate_limit_exceeded");
    expect(response.headers.get("retry-after")).toBe("0.05");
    expect(response.headers.get("retry-after-ms")).toBe("50");
  });

  it("cuts a stream mid-way: some chunks arrive, no finish reason, no [DONE], nothing billed", async () => {
    const response = await postJson(
      chatUrl(),
      chatBody("beta-4o-mini", "Explain tides in a few sentences.", { stream: true }),
      "sk-test-faults",
    );
    expect(response.status).toBe(200);
    let text = "";
    const decoder = new TextDecoder();
    await expect(
      (async () => {
        for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
      })(),
    ).rejects.toThrow();
    const events = sseEvents(text.slice(0, text.lastIndexOf("\n\n") + 2)) as {
      choices: { finish_reason: string | null }[];
    }[];
    expect(events.length).toBeGreaterThan(0);
    expect(events).not.toContain("[DONE]");
    expect(events.every((event) => event.choices[0]?.finish_reason == null)).toBe(true);
    expect(keyStats("faults").billed).toHaveLength(0);
  });

  it("cuts a non-streamed request before its body", async () => {
    await expect(
      postJson(chatUrl(), chatBody("beta-4o-mini"), "sk-test-faults").then((response) => response.text()),
    ).rejects.toThrow();
    expect(keyStats("faults").billed).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(keyStats("faults").requests.byStatus.dropped).toBeGreaterThanOrEqual(2);
  });

  it("delays a model's answers by its latency", async () => {
    const started = performance.now();
    expect((await postJson(chatUrl(), chatBody("gamma-2.5-flash-lite"), "sk-test-faults")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("meets the same faults in the same order for the same seed", async () => {
    const run = async () => {
      const local = await startLocalGateway({
        config: {
          faults: { seed: 42, models: { "beta-4o-mini": { errorRate: 0.3, status: 502, rateLimitRate: 0.3 } } },
        },
      });
      const statuses: number[] = [];
      for (let index = 0; index < 12; index++) {
        const response = await postJson(
          `${local.baseURL}/chat/completions`,
          chatBody("beta-4o-mini", `Question ${index}`),
        );
        statuses.push(response.status);
        await response.arrayBuffer();
      }
      await local.close();
      return statuses;
    };
    const first = await run();
    expect(new Set(first)).toEqual(new Set([200, 429, 502]));
    expect(await run()).toEqual(first);
  });
});
