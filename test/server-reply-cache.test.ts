import { describe, expect, it } from "vitest";
import { RenderedReply } from "../src/server/rendered-reply.js";
import { ReplyCache } from "../src/server/reply-cache.js";

const reply = () =>
  new RenderedReply(
    { content: "Hello.", toolCalls: [], finishReason: "stop", completionTokens: 2, reasoningTokens: 0, images: 0 },
    9,
  );
const key = (content: string) => JSON.stringify({ model: "beta-4o-mini", messages: [{ role: "user", content }] });

describe("the reply cache", () => {
  it("does not keep the reply of a request seen once", () => {
    const cache = new ReplyCache();
    cache.set(key("once"), reply());
    expect(cache.get(key("once"))).toBeUndefined();
  });

  it("keeps the reply once the same request comes again", () => {
    const cache = new ReplyCache();
    const second = reply();
    cache.set(key("twice"), reply());
    cache.set(key("twice"), second);
    expect(cache.get(key("twice"))).toBe(second);
  });

  it("never keeps replies to requests with linked images", () => {
    const cache = new ReplyCache();
    const linked = JSON.stringify({
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }],
    });
    cache.set(linked, reply());
    cache.set(linked, reply());
    expect(cache.get(linked)).toBeUndefined();
  });

  it("forgets the least recently used reply when full", () => {
    const cache = new ReplyCache();
    const offerTwice = (content: string) => {
      cache.set(key(content), reply());
      cache.set(key(content), reply());
    };
    offerTwice("first");
    offerTwice("second");
    expect(cache.get(key("first"))).toBeDefined();
    for (let index = 0; index < 511; index++) offerTwice(`filler ${index}`);
    expect(cache.get(key("second"))).toBeUndefined();
    expect(cache.get(key("first"))).toBeDefined();
  });
});
