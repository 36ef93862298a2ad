import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { roundYuan } from "../src/catalog/prices.js";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import type { ChatGatewayOptions } from "../src/langchain/chat-gateway-options.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { SvcFlowError } from "../src/errors.js";
import { MusicClient } from "../src/gateway/music-client.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const KEY = "sk-test-cost-mixed";
// One price table for both sides: the gateway bills with it, the ledger prices with it.
const PRICES = {
  chat: {
    "beta-4o-mini": { input: 0.001, output: 0.004 },
    "beta-5-mini": { input: 0.002, output: 0.008 },
    "gamma-2.5-flash": { input: 0.0015, output: 0.006 },
  },
};

let gateway: LocalGateway;
let music: MusicClient;
let ledger: CostLedger;
const models: ChatGateway[] = [];

function model(step: string, options: Omit<ChatGatewayOptions, "apiKey" | "baseURL" | "ledger">): ChatGateway {
  const created = new ChatGateway({
    apiKey: KEY,
    baseURL: gateway.baseURL,
    ledger,
    usageTags: { step },
    retry: { minDelayMs: 1, maxDelayMs: 5 },
    onWarning: () => undefined,
    ...options,
  });
  models.push(created);
  return created;
}

/** Runs a step that may meet an injected fault the client cannot retry past (a stream cut after
 * output began); the ledger must account for it either way. */
async function tolerate(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof SvcFlowError)) throw error;
  }
}

/** A silent PCM WAV (16 kHz mono 16-bit). */
function wav(seconds: number): Buffer {
  const rate = 16_000;
  const data = Buffer.alloc(rate * 2 * seconds);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

beforeAll(async () => {
  gateway = await startLocalGateway({
    config: {
      keys: [{ key: KEY, name: "mixed", quota: 60 }],
      prices: PRICES,
      faults: {
        seed: 4,
        models: {
          "alpha-opus-4-8": { errorRate: 1, status: 503 },
          "beta-4o-mini": { rateLimitRate: 0.4, retryAfterS: 0.01 },
          "gamma-2.5-flash": { dropRate: 0.4 },
          "alpha-sonnet-4-6": { errorRate: 0.15, status: 502 },
        },
      },
      music: { completeAfterMs: 20, failRate: 0.5, clipSeconds: 1 },
    },
  });
  music = new MusicClient({ apiKey: KEY, rootURL: gateway.rootURL });
});

afterAll(async () => {
  await Promise.all(models.map((created) => created.close()));
  await music.close();
  await gateway.close();
});

async function quotaLeft(): Promise<number> {
  const { report } = await music.getLimit();
  return report.svc_key_quota!;
}

describe("the ledger against the gateway's bill", () => {
  it("totals a mixed workload to what the gateway billed the key, within ¥0.0001", async () => {
    ledger = new CostLedger({ prices: PRICES, maxYuan: 50, allowUnpriced: true, tags: { run: "mixed" } });
    music = new MusicClient({ apiKey: KEY, rootURL: gateway.rootURL, recorder: ledger.tagged({ step: "music" }) });
    const quotaBefore = await quotaLeft();

    // Plain chat, and a batch of concurrent calls.
    const sonnet = model("chat", { model: "alpha-sonnet-4-6", maxTokens: 300 });
    await sonnet.invoke("Give three names for a lighthouse bakery.");
    await tolerate(() =>
      sonnet.batch(["One word for calm.", "One word for storm.", "One word for dawn.", "One word for tide."]),
    );

    // Streamed chat (the usage comes from the final chunk).
    const streamed = model("stream", { model: "alpha-sonnet-4-6", maxTokens: 250 });
    await tolerate(async () => {
      for await (const _chunk of await streamed.stream("Tell a short story about a fox and a kite.")) {
        // read to the end
      }
    });

    // Tools, through a model that is rate limited part of the time.
    const multiply = tool(async ({ a, b }) => String(a * b), {
      name: "multiply",
      description: "Multiplies two numbers",
      schema: z.object({ a: z.number().describe("first factor"), b: z.number().describe("second factor") }),
    });
    const withTools = model("tools", { model: "beta-4o-mini", maxTokens: 200, maxRetries: 8 }).bindTools([multiply]);
    const question = new HumanMessage("What is 12 times 7? Use the multiply tool.");
    const first = await withTools.invoke([question]);
    const call = first.tool_calls?.[0];
    if (call) {
      // The answer is fixed: the test is about what the round trip costs, not the tool.
      await withTools.invoke([question, first, new ToolMessage({ content: "84", tool_call_id: call.id! })]);
    }

    // Image generation, billed per image.
    await model("image", { model: "gamma-2.5-flash-image" }).invoke("A poster of a lighthouse at dusk.");

    // A model that always fails upstream, falling back after its retries.
    await model("fallback", {
      model: "alpha-opus-4-8",
      fallbacks: ["alpha-sonnet-4-6"],
      maxRetries: 2,
      maxTokens: 200,
    }).invoke("Summarise the tide tables in one line.");

    // Audio in the prompt (about 1900 tokens a minute), streamed through connection drops.
    const listen = model("audio", { model: "gamma-2.5-flash", maxTokens: 200, maxRetries: 8 });
    const audio = new HumanMessage({
      content: [
        { type: "text", text: "What do you hear?" },
        { type: "input_audio", input_audio: { data: wav(20).toString("base64"), format: "wav" } },
      ],
    });
    await tolerate(() => listen.invoke([audio]));
    await tolerate(async () => {
      for await (const _chunk of await listen.stream([audio])) {
        // read to the end
      }
    });

    // A reasoning model on a small budget: thinking may take all of it (billed, then an
    // EmptyOutputError), and the reasoning tokens are part of the bill either way.
    await tolerate(() =>
      model("reasoning", { model: "beta-5-mini", maxTokens: 16 }).invoke(
        "Explain step by step why the sky is blue, and prove it.",
      ),
    );
    await model("reasoning", { model: "beta-5-mini", maxTokens: 3000 }).invoke("Name a colour.");

    // An unpriced model: the gateway bills it 0, the ledger says "unpriced".
    await model("unpriced", { model: "beta-4o", maxTokens: 100 }).invoke("Say hello.");

    // Music: generate (some jobs fail and are refunded), lyrics.
    for (const prompt of ["calm piano", "sea shanty", "rainy jazz"]) {
      const { clips, ids } = await music.generate({ prompt, instrumental: true });
      try {
        await music.waitForClips(
          clips.map((clip) => clip.id),
          { pollIntervalMs: 10, timeoutMs: 10_000 },
        );
      } catch (error) {
        if (!(error instanceof SvcFlowError) || error.code !== "music_failed") throw error;
        expect(ledger.refund(ids.requestId!)).toBeDefined();
      }
    }
    await music.lyrics({ prompt: "a song about lanterns" });

    const quotaAfter = await quotaLeft();
    const summary = ledger.summary();
    const key = gateway.stats().keys.find((stats) => stats.name === "mixed")!;

    // The acceptance check: the ledger's total is the key's quota drop, and what stats() says it billed.
    expect(Math.abs(roundYuan(quotaBefore - quotaAfter) - summary.totalYuan)).toBeLessThan(0.0001);
    expect(Math.abs(key.spentYuan - summary.totalYuan)).toBeLessThan(0.0001);

    // Request by request: every billed request is in the ledger at the same price.
    const entries = ledger.entries();
    for (const billed of key.billed) {
      const entry = entries.find(
        (candidate) => candidate.requestId === billed.requestId && candidate.status !== "refunded",
      );
      expect(entry, `ledger entry for ${billed.requestId}`).toBeDefined();
      if (billed.model === "beta-4o") expect(entry!.yuan).toBeUndefined();
      else expect(entry!.yuan).toBeCloseTo(billed.yuan, 8);
      if (billed.kind === "chat") {
        expect(entry!.promptTokens).toBe(billed.promptTokens);
        expect(entry!.completionTokens).toBe(billed.completionTokens);
        expect(entry!.reasoningTokens).toBe(billed.reasoningTokens ?? 0);
        expect(entry!.images).toBe(billed.images ?? 0);
      }
    }
    // Refunds match too.
    expect(summary.refunds).toBe(key.billed.filter((billed) => billed.refunded).length);

    // Every attempt the gateway refused or cut is a failed entry at no cost.
    const chatFailures = Object.entries(key.requests.byStatus)
      .filter(([status]) => status !== "200")
      .reduce((sum, [, count]) => sum + count, 0);
    const unbilledFailures = entries.filter((entry) => entry.status === "failed" && entry.promptTokens === 0);
    expect(unbilledFailures.length).toBe(chatFailures);
    expect(unbilledFailures.every((entry) => entry.yuan === 0)).toBe(true);
    expect(summary.byModel["alpha-opus-4-8"]).toMatchObject({ calls: 3, failed: 3, yuan: 0 });

    // The mix really happened.
    expect(summary.byModel["gamma-2.5-flash-image"]).toMatchObject({ images: 1, yuan: 0.42 });
    expect(summary.byModel["beta-4o"]).toMatchObject({ yuan: null, unpricedCalls: 1 });
    expect(summary.byModel["music:generate"]!.calls).toBe(3);
    expect(summary.byModel["music:lyrics"]!.yuan).toBe(0.2);
    expect(summary.byTag.step!.fallback!.calls).toBeGreaterThanOrEqual(3);
    expect(entries.some((entry) => entry.status === "failed" && entry.errorCode === "empty_output")).toBe(false);
    expect(summary.byTag.step!.reasoning!.calls).toBeGreaterThanOrEqual(2);
    expect(
      entries.some((entry) => entry.tags.step === "audio" && entry.status === "ok" && entry.promptTokens > 600),
    ).toBe(true);
    expect(entries.some((entry) => entry.errorCode === "rate_limited")).toBe(true);

    // Estimates were upper bounds: no call cost more than it reserved, no usage went missing.
    expect(summary.exceededEstimates).toBe(0);
    expect(summary.usageMissing).toBe(0);
    expect(ledger.heldYuan).toBe(0);
  });
});
