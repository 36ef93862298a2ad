import { once } from "node:events";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatGateway, GatewayClient, startLocalGateway, type LocalGateway } from "../src/index.js";

// The gateway holds every answer a while, so calls started together are all in flight at once; a TCP
// proxy in front of it counts the connections the client opens, as the server sees them.
const KEY = "sk-connections";
const LATENCY_MS = 150;

let gateway: LocalGateway;
let proxy: net.Server;
let proxyURL: string;
let accepted = 0;

beforeAll(async () => {
  gateway = await startLocalGateway({ port: 0, config: { keys: [{ key: KEY }], faults: { latencyMs: LATENCY_MS } } });
  const target = new URL(gateway.baseURL);
  proxy = net.createServer((socket) => {
    accepted++;
    const upstream = net.connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  const { port } = proxy.address() as net.AddressInfo;
  proxyURL = `http://127.0.0.1:${port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await gateway.close();
});

async function connectionsFor(run: () => Promise<unknown>): Promise<number> {
  const before = accepted;
  await run();
  return accepted - before;
}

const request = { model: "beta-4o-mini", messages: [{ role: "user" as const, content: "Say hi." }], max_tokens: 16 };

describe("connections follow concurrency", () => {
  it("opens one connection per call in flight when the client sets no limit", async () => {
    const client = new GatewayClient({ apiKey: KEY, baseURL: proxyURL });
    try {
      const count = await connectionsFor(() => Promise.all(Array.from({ length: 64 }, () => client.chat(request))));
      expect(count).toBe(64);
    } finally {
      await client.close();
    }
  });

  it("lets ChatGateway with maxConcurrency 64 keep 64 calls in flight on 64 connections", async () => {
    const model = new ChatGateway({
      model: "beta-4o-mini",
      apiKey: KEY,
      baseURL: proxyURL,
      maxConcurrency: 64,
      maxTokens: 16,
    });
    try {
      const count = await connectionsFor(() => Promise.all(Array.from({ length: 64 }, () => model.invoke("Say hi."))));
      expect(count).toBe(64);
    } finally {
      await model.close();
    }
  });

  it("opens no more connections than ChatGateway's maxConcurrency, reusing them for later calls", async () => {
    const model = new ChatGateway({
      model: "beta-4o-mini",
      apiKey: KEY,
      baseURL: proxyURL,
      maxConcurrency: 8,
      maxTokens: 16,
    });
    try {
      const count = await connectionsFor(() => Promise.all(Array.from({ length: 32 }, () => model.invoke("Say hi."))));
      expect(count).toBe(8);
    } finally {
      await model.close();
    }
  });

  it("keeps to the connections option when one is given", async () => {
    const client = new GatewayClient({ apiKey: KEY, baseURL: proxyURL, connections: 4 });
    try {
      const count = await connectionsFor(() => Promise.all(Array.from({ length: 16 }, () => client.chat(request))));
      expect(count).toBe(4);
    } finally {
      await client.close();
    }
  });
});
