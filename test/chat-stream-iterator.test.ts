import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./chat-harness.js";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

describe("ChatGateway stream", () => {
  it("frees the connection when cancelled before any read", async () => {
    const model = harness.model({ model: "beta-4o-mini", maxConcurrency: 1 });
    for (let call = 0; call < 3; call++) await (await model.stream("Write a long essay about the sea.")).cancel();
    expect((await model.invoke("Say hello.")).content).toBeTruthy();
  });

  it("rejects stream() itself when the call fails before the first chunk, as LangChain's stream does", async () => {
    const model = harness.model({ model: "beta-4o-mini", apiKey: "sk-not-a-key-of-this-gateway" });
    await expect(model.stream("Hi.")).rejects.toMatchObject({ status: 401 });
  });

  it("stops reading and frees the connection when the consumer breaks out early", async () => {
    const model = harness.model({ model: "beta-4o-mini" });
    let seen = 0;
    for await (const _chunk of await model.stream("Write a long essay about the sea.")) if (++seen === 2) break;
    expect(seen).toBe(2);
    // The next call gets a connection and completes: nothing was left holding the slot.
    const reply = await model.invoke("Say hello.");
    expect(reply.content).toBeTruthy();
  });
});
