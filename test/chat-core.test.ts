import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callChat, type ChatCallOptions } from "../src/chat/call-chat.js";
import type { ChatEvent, ChatEventStream } from "../src/chat/chat-reply.js";
import type { ChatWarning } from "../src/chat/parameter-warning.js";
import { StreamError, TimeoutError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { Scheduler } from "../src/scheduling/scheduler.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const KEY = "sk-local-demo";
let gateway: LocalGateway;
let client: GatewayClient;
// Sends a gateway error inside a 200 stream for beta-4o, and everything else on to the gateway.
let relay: Server;
let relayClient: GatewayClient;
const relayed: string[] = [];

beforeAll(async () => {
  gateway = await startLocalGateway({ config: { faults: { models: { "beta-4o-mini": { chunkDelayMs: 20 } } } } });
  client = new GatewayClient({ apiKey: KEY, baseURL: gateway.baseURL });
  relay = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const model = (JSON.parse(body) as { model: string }).model;
    relayed.push(model);
    if (model === "beta-4o") {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end('data: {"error":{"message":"The upstream model failed.","type":"server_error"}}\n\n');
      return;
    }
    const upstream = await fetch(`${gateway.rootURL}${request.url ?? ""}`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body,
    });
    response.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  relayClient = new GatewayClient({
    apiKey: KEY,
    baseURL: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/v1`,
  });
});

afterAll(async () => {
  await client.close();
  await relayClient.close();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  await gateway.close();
});

const ask = (content: string) => [{ role: "user" as const, content }];

async function drain(stream: ChatEventStream): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("callChat", () => {
  it("returns the complete reply with usage, the model that answered and the gateway's ids", async () => {
    const reply = await callChat({ model: "beta-4o-mini", messages: ask("Say hello."), max_tokens: 50 }, { client });
    expect(reply.content.length).toBeGreaterThan(0);
    expect(reply.model).toBe("beta-4o-mini");
    expect(reply.servedModel).toMatch(/^gpt-4o-mini|beta-4o-mini/);
    expect(reply.usage?.total_tokens).toBe(reply.usage!.prompt_tokens + reply.usage!.completion_tokens);
    expect(reply.ids.requestId).toBeTruthy();
    expect(reply.finishReason).toBe("stop");
  });

  it("streams text deltas that add up to the reply given on the finish event", async () => {
    const events = await drain(
      await callChat(
        { model: "alpha-sonnet-4-6", messages: ask("Write about tides."), max_tokens: 200, stream: true },
        { client },
      ),
    );
    const finish = events.at(-1);
    expect(finish?.type).toBe("finish");
    if (finish?.type !== "finish") return;
    const text = events.map((event) => (event.type === "text" ? event.text : "")).join("");
    expect(events.filter((event) => event.type === "text").length).toBeGreaterThan(1);
    expect(text).toBe(finish.reply.content);
    expect(finish.reply.usage?.completion_tokens).toBeGreaterThan(0);
    expect(finish.reply.ids.requestId).toBeTruthy();
  });

  it("streams tool-call fragments that assemble into the reply's tool calls", async () => {
    const weather = {
      type: "function" as const,
      function: {
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    };
    const stream = await callChat(
      {
        model: "beta-4o",
        messages: ask("What is the weather in Paris?"),
        tools: [weather],
        tool_choice: "required",
        stream: true,
      },
      { client },
    );
    const events = await drain(stream);
    const fragments = events.flatMap((event) => (event.type === "tool-call" ? [event] : []));
    const finish = events.at(-1);
    if (finish?.type !== "finish") throw new Error("no finish event");
    const [call] = finish.reply.toolCalls;
    expect(call?.name).toBe("get_weather");
    expect(fragments[0]).toMatchObject({ index: 0, id: call?.id, name: "get_weather" });
    expect(JSON.parse(fragments.map((fragment) => fragment.arguments).join(""))).toEqual(call?.arguments);
  });

  it("falls back to the next model on an error inside a 200 stream before the first token", async () => {
    const warnings: ChatWarning[] = [];
    const options: ChatCallOptions = {
      client: relayClient,
      retry: { attempts: 1 },
      onWarning: (warning) => void warnings.push(warning),
    };
    const stream = await callChat(
      { model: "beta-4o", fallbacks: ["beta-4o-mini"], messages: ask("Say hello."), stream: true },
      options,
    );
    expect(stream.model).toBe("beta-4o-mini");
    expect(stream.fallbackFrom).toEqual(["beta-4o"]);
    const finish = (await drain(stream)).at(-1);
    expect(finish?.type === "finish" && finish.reply.content.length > 0).toBe(true);
    expect(warnings.map((warning) => warning.code)).toContain("fallback_used");
  });

  it("holds the concurrency slot until the stream has ended, and frees it when the consumer leaves early", async () => {
    const scheduler = new Scheduler({ concurrency: 1 });
    const stream = await callChat(
      { model: "beta-4o-mini", messages: ask("Write a long essay about the sea."), max_tokens: 300, stream: true },
      { client, scheduler },
    );
    expect(scheduler.running).toBe(1);
    let seen = 0;
    for await (const _event of stream) if (++seen === 2) break;
    expect(scheduler.running).toBe(0);
    const reply = await callChat(
      { model: "beta-4o-mini", messages: ask("Say hello."), max_tokens: 20 },
      { client, scheduler },
    );
    expect(reply.content.length).toBeGreaterThan(0);
    expect(scheduler.running).toBe(0);
  });

  it("refuses a model the catalogue does not know before sending anything", async () => {
    await expect(callChat({ model: "no-such-model", messages: ask("Hi.") }, { client })).rejects.toMatchObject({
      code: "model_not_found",
    });
  });

  it("throws a StreamError carrying the partial output when a stream times out after its first token", async () => {
    const stream = await callChat(
      { model: "beta-4o-mini", messages: ask("Write a long essay about the sea."), max_tokens: 300, stream: true },
      { client, timeoutMs: 400 },
    );
    const error = await drain(stream).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).cause).toBeInstanceOf(TimeoutError);
    expect(((error as StreamError).partial as { content: string }).content.length).toBeGreaterThan(0);
  });
});
