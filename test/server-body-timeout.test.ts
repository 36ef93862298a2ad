// A request body that trickles in (slowloris) must not hold a concurrency slot: past
// limits.bodyTimeoutMs the gateway answers 408 and closes the connection, freeing the slot.
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

let gateway: LocalGateway;
beforeAll(async () => {
  gateway = await startLocalGateway({
    config: { keys: [{ key: "sk-test-one-slot", concurrency: 1 }], limits: { bodyTimeoutMs: 300 } },
  });
});
afterAll(async () => gateway?.close());

/** Opens a raw connection, sends the headers of a chat request and the first bytes of its body only. */
function trickle(): { socket: Socket; received: Promise<string> } {
  const url = new URL(gateway.baseURL);
  const socket = connect(Number(url.port), url.hostname);
  const body = JSON.stringify({ model: "beta-4o", messages: [{ role: "user", content: "hello" }] });
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer sk-test-one-slot\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
  );
  // One more byte now and then, never the whole body.
  let sent = 5;
  const timer = setInterval(() => {
    if (!socket.destroyed && sent < body.length - 1) socket.write(body.slice(sent, ++sent));
  }, 50);
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const received = new Promise<string>((resolve) => {
    socket.on("close", () => {
      clearInterval(timer);
      resolve(text);
    });
    socket.on("error", () => undefined);
  });
  return { socket, received };
}

describe("local gateway request body deadline", () => {
  it("answers 408 and closes the connection of a body that trickles in past bodyTimeoutMs", async () => {
    const { received } = trickle();
    const answer = await received;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain("request_timeout");
  });

  it("frees the key's only concurrency slot once a trickled body is cut off", async () => {
    const { received } = trickle();
    await received;
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test-one-slot", "content-type": "application/json" },
      body: JSON.stringify({ model: "beta-4o", messages: [{ role: "user", content: "hello" }], max_tokens: 8 }),
    });
    expect(response.status).toBe(200);
    expect(gateway.stats().keys[0]?.inFlight ?? 0).toBeLessThanOrEqual(1);
  });
});
