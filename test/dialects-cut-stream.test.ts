// A relay whose upstream dies mid-reply may end the stream as if it were complete: new-api ends it
// at [DONE] with no finish reason and no error (QuantumNous/new-api#7059), and one-api's OpenAI
// stream handler does the same after a read error. The local gateway's new-api dialect does so on a
// drop fault; through real HTTP, the chat core and ChatGateway give a StreamError, never the cut
// text as an answer.
import { afterEach, describe, expect, it } from "vitest";
import { callChat } from "../src/chat/call-chat.js";
import type { PartialReply } from "../src/chat/collect-reply.js";
import { StreamError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { FaultInjector } from "../src/server/faults.js";
import { KEY, startHarness, type Harness } from "./chat-harness.js";

const MODEL = "beta-4o-mini";
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The first fault seed whose first decision for MODEL (dropRate 1) cuts after most of the reply. */
function lateCutSeed(): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const fault = { errorRate: 0, status: 503, rateLimitRate: 0, retryAfterS: 1, dropRate: 1, chunkDelayMs: 0 };
    const decision = new FaultInjector({ seed, latencyMs: 0, models: { [MODEL]: fault } }).decide(MODEL);
    if (decision.kind === "drop" && decision.cutAt > 0.6) return seed;
  }
  throw new Error("no seed found");
}

const PROMPT = "Write a long story about a fox who learns to sail across the sea.";

describe("a stream new-api ends at [DONE] after its upstream died", () => {
  it("is a StreamError carrying the cut text in the chat core, not a finished reply", async () => {
    harness = await startHarness({
      dialect: "new-api",
      faults: { seed: lateCutSeed(), models: { [MODEL]: { dropRate: 1 } } },
    });
    const client = new GatewayClient({ apiKey: KEY, baseURL: harness.gateway.baseURL });
    let text = "";
    let failure: unknown;
    try {
      const request = { model: MODEL, stream: true as const, messages: [{ role: "user" as const, content: PROMPT }] };
      for await (const event of await callChat(request, { client, retry: { attempts: 1 } }))
        if (event.type === "text") text += event.text;
    } catch (error) {
      failure = error;
    } finally {
      await client.close();
    }
    expect(failure).toBeInstanceOf(StreamError);
    expect(text.length).toBeGreaterThan(0);
    expect(((failure as StreamError).partial as PartialReply).content).toBe(text);
  });

  it("is a StreamError from ChatGateway's stream, with the text shown so far as its partial", async () => {
    harness = await startHarness({
      dialect: "new-api",
      faults: { seed: lateCutSeed(), models: { [MODEL]: { dropRate: 1 } } },
    });
    const model = harness.model({ model: MODEL, maxRetries: 0 });
    let text = "";
    let failure: unknown;
    try {
      for await (const chunk of await model.stream(PROMPT)) text += chunk.text;
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StreamError);
    expect(text.length).toBeGreaterThan(0);
    expect(((failure as StreamError).partial as PartialReply).content).toBe(text);
  });
});
