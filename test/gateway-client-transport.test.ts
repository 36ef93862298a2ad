import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type Dispatcher, errors as undiciErrors } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import {
  AbortedError,
  AuthenticationError,
  ParameterError,
  RateLimitError,
  StreamError,
  SvcFlowError,
  TimeoutError,
  UpstreamError,
} from "../src/errors.js";
import { errorFromNetwork } from "../src/gateway/error-from-network.js";
import { GatewayClient, type GatewayClientOptions } from "../src/gateway/gateway-client.js";
import { MusicClient } from "../src/gateway/music-client.js";
import type { ChatChunk, ChatRequest } from "../src/gateway/wire.js";

// A tiny real HTTP server per test, for what a well-behaved gateway never does: malformed
// events, cut connections, stalls.

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const API_KEY = "sk-transport-test-secret";
const servers: Server[] = [];
const clients: GatewayClient[] = [];

async function serve(handler: Handler): Promise<{ baseURL: string; server: Server }> {
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => handler(request, response, body));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

function client(baseURL: string, options: GatewayClientOptions = {}): GatewayClient {
  const created = new GatewayClient({ apiKey: API_KEY, baseURL, ...options });
  clients.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((created) => created.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

const request: ChatRequest = { model: "beta-4o-mini", messages: [{ role: "user", content: "hi" }] };

function chunk(content: string, finish: string | null = null): string {
  const value = {
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "beta-4o-mini",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(value)}\n\n`;
}

function sseHead(response: ServerResponse): void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "x-request-id": "req-9",
    "x-svc-audit-id": "aud-9",
    "x-svc-backend-id": "be-9",
  });
}

async function drain(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const item of stream) chunks.push(item);
  return chunks;
}

async function failureOf(promise: Promise<unknown>): Promise<SvcFlowError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcFlowError) return error;
    throw error;
  }
  throw new Error("expected a failure");
}

describe("GatewayClient over real sockets", () => {
  it("streams chunks written a few bytes at a time, and keeps the response ids", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      const text = chunk("Hé") + chunk("llo 😀") + chunk("", "stop") + "data: [DONE]\n\n";
      const bytes = Buffer.from(text);
      let offset = 0;
      const timer = setInterval(() => {
        response.write(bytes.subarray(offset, offset + 7));
        offset += 7;
        if (offset >= bytes.length) {
          clearInterval(timer);
          response.end();
        }
      }, 1);
    });
    const stream = await client(baseURL).chatStream(request);
    expect(stream.ids).toEqual({ requestId: "req-9", auditId: "aud-9", backendId: "be-9" });
    const chunks = await drain(stream);
    expect(chunks.map((item) => item.choices[0]?.delta.content).join("")).toBe("Héllo 😀");
  });

  it("sends the bearer key, stream: true and asks for the usage chunk", async () => {
    let seen: { authorization?: string; body?: Record<string, unknown> } = {};
    const { baseURL } = await serve((incoming, response, body) => {
      seen = { authorization: incoming.headers.authorization, body: JSON.parse(body) };
      sseHead(response);
      response.end(chunk("x", "stop"));
    });
    await drain(await client(baseURL).chatStream(request));
    expect(seen.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("asks for an uncompressed body, streamed or not", async () => {
    // Without Accept-Encoding any coding is acceptable (RFC 9110 section 12.5.3); undici sends none.
    const seen: Array<string | undefined> = [];
    const { baseURL } = await serve((incoming, response) => {
      seen.push(incoming.headers["accept-encoding"]);
      sseHead(response);
      response.end(chunk("x", "stop"));
    });
    const gateway = client(baseURL);
    await drain(await gateway.chatStream(request));
    await gateway.chat(request);
    expect(seen).toEqual(["identity", "identity"]);
  });

  it("sends a call through the dispatcher given for it instead of the client's own", async () => {
    const seen: Array<string | undefined> = [];
    const { baseURL } = await serve((incoming, response) => {
      seen.push(incoming.headers["x-through"] as string | undefined);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "c1",
          object: "chat.completion",
          created: 1,
          model: "beta-4o-mini",
          choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        }),
      );
    });
    const agent = new Agent();
    const view = agent.compose(
      (dispatch): Dispatcher["dispatch"] =>
        (options, handler) =>
          dispatch(
            { ...options, headers: { ...(options.headers as Record<string, string>), "x-through": "view" } },
            handler,
          ),
    );
    try {
      const gateway = client(baseURL);
      await gateway.chat(request, { dispatcher: view });
      await gateway.chat(request);
      expect(seen).toEqual(["view", undefined]);
    } finally {
      await agent.close();
    }
  });

  it("throws StreamError with the partial chunks on a malformed event", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.end(`${chunk("one")}data: {"id": "c1", "object": trunc\n\n`);
    });
    const error = await failureOf(drain(await client(baseURL).chatStream(request)));
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).partial).toHaveLength(1);
    expect(error.requestId).toBe("req-9");
  });

  it("throws StreamError when an event is JSON but not a chat chunk", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.end(`data: {"hello": 1}\n\n`);
    });
    await expect(drain(await client(baseURL).chatStream(request))).rejects.toThrow(/not a chat chunk/);
  });

  it("finishes a stream whose chunks never name a finish reason, ending at [DONE] after text, with stop", async () => {
    // one-api's Gemini adaptor: `finish_reason` is left out of every chunk (omitempty), never sent.
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      const piece = {
        id: "c1",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: "the whole answer" } }],
      };
      response.end(`data: ${JSON.stringify(piece)}\n\ndata: [DONE]\n\n`);
    });
    const chunks = await drain(await client(baseURL).chatStream(request));
    expect(chunks.map((item) => item.choices[0]?.delta.content ?? "").join("")).toBe("the whole answer");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
  });

  it('throws StreamError when chunks said "finish_reason": null and the stream ended at [DONE] without one', async () => {
    // one-api's OpenAI stream handler sends [DONE] after an upstream read error, and new-api sent its
    // usage chunk and [DONE] (QuantumNous/new-api#7059): a cut reply, not a finished one.
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.end(`${chunk("The answer is")}data: [DONE]\n\n`);
    });
    const error = await failureOf(drain(await client(baseURL).chatStream(request)));
    expect(error).toBeInstanceOf(StreamError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('said "finish_reason": null');
    expect((error as StreamError).partial).toHaveLength(1);
  });

  it("throws StreamError when a stream ends without a finish reason or any output", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.end(`${chunk("")}data: [DONE]\n\n`);
    });
    const error = await failureOf(drain(await client(baseURL).chatStream(request)));
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain("without a finish reason or any output after 1 chunk(s)");
    expect((error as StreamError).partial).toHaveLength(1);
    // A caller that keeps its own partial (ChatGateway does) can have the chunks not kept.
    const lean = await failureOf(drain(await client(baseURL).chatStream(request, { keepPartial: false })));
    expect(lean.message).toContain("after 1 chunk(s)");
    expect((lean as StreamError).partial).toEqual([]);
  });

  it("throws a retryable UpstreamError when the connection is cut mid-stream", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.write(chunk("partial"), () => setTimeout(() => response.socket?.destroy(), 20));
    });
    const stream = await client(baseURL).chatStream(request);
    const error = await failureOf(drain(stream));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe("connection_error");
    expect(error.retryable).toBe(true);
    expect(error.requestId).toBe("req-9");
  });

  it("maps an error event inside a 200 stream to its error class", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.end(`${chunk("a")}data: {"error": {"message": "slow down", "code": "rate_limit_exceeded"}}\n\n`);
    });
    await expect(drain(await client(baseURL).chatStream(request))).rejects.toBeInstanceOf(RateLimitError);
  });

  it("times out when the stream stalls between events", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.write(chunk("first"));
    });
    const stream = await client(baseURL, { chunkTimeoutMs: 150 }).chatStream(request);
    const error = await failureOf(drain(stream));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain("the next stream event");
  });

  it("does not let keep-alive comments hide a stalled stream", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.write(chunk("first"));
      const timer = setInterval(() => response.write(": ping\n\n"), 30);
      response.on("close", () => clearInterval(timer));
    });
    const error = await failureOf(drain(await client(baseURL, { chunkTimeoutMs: 150 }).chatStream(request)));
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("times out when no response arrives", async () => {
    const { baseURL } = await serve(() => undefined);
    const error = await failureOf(client(baseURL, { firstByteTimeoutMs: 150 }).chat(request));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("Timed out after 150 ms waiting for the response");
  });

  it("times out when a JSON body stalls between chunks, naming the chunk timeout", async () => {
    const { baseURL } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"id":"x",');
    });
    const error = await failureOf(client(baseURL, { chunkTimeoutMs: 150 }).chat(request));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain("Timed out after 150 ms waiting for the next chunk of the response body");
  });

  it("throws AbortedError when the signal aborts while a JSON answer is awaited", async () => {
    const { baseURL } = await serve(() => undefined);
    const controller = new AbortController();
    const pending = client(baseURL).chat(request, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });

  it("times out a relay that streams a non-stream call when its events stall", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.write(chunk("first"));
      const timer = setInterval(() => response.write(": ping\n\n"), 30);
      response.on("close", () => clearInterval(timer));
    });
    const error = await failureOf(client(baseURL, { chunkTimeoutMs: 150 }).chat(request));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toContain("the next stream event");
  });

  it("throws AbortedError when the signal aborts mid-stream", async () => {
    const { baseURL } = await serve((_request, response) => {
      sseHead(response);
      response.write(chunk("first"));
    });
    const controller = new AbortController();
    const stream = await client(baseURL).chatStream(request, { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    const pending = iterator.next();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });

  it("closes the connection and ends iteration quietly when cancelled", async () => {
    let serverSide: ServerResponse | undefined;
    const { baseURL } = await serve((_request, response) => {
      serverSide = response;
      sseHead(response);
      response.write(chunk("first"));
    });
    const stream = await client(baseURL).chatStream(request);
    const closed = once(serverSide as ServerResponse, "close");
    await stream.cancel();
    await closed;
    await expect(drain(stream)).resolves.toEqual([]);
  });

  it("rejects chatStream with the typed error of a non-200 and its Retry-After", async () => {
    const { baseURL } = await serve((_request, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": "3", "x-request-id": "req-429" });
      response.end(JSON.stringify({ error: { message: "Too many", type: "rate_limit", code: "rate_limit_exceeded" } }));
    });
    const error = await failureOf(client(baseURL).chatStream(request));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfterS: 3, requestId: "req-429" });
  });

  it("keeps the key out of the error when the gateway echoes it", async () => {
    const { baseURL } = await serve((_request, response) => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: `Incorrect API key provided: ${API_KEY}`, code: "invalid_api_key" } }),
      );
    });
    const error = await failureOf(client(baseURL).chat(request));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(API_KEY);
  });

  it("throws a non-retryable invalid_response when a 200 body is not the wire format", async () => {
    const { baseURL } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "x-request-id": "req-bad" });
      response.end(JSON.stringify({ choices: "nope" }));
    });
    const error = await failureOf(client(baseURL).chat(request));
    expect(error).toMatchObject({ code: "invalid_response", retryable: false, requestId: "req-bad" });
  });

  it("reports a refused connection as a retryable connection_error that names the fix", async () => {
    const { baseURL, server } = await serve(() => undefined);
    server.close();
    await once(server, "close");
    const error = await failureOf(client(baseURL).listModels());
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe("connection_error");
    expect(error.message).toContain("Check SVC_BASE_URL");
  });

  it("reuses one keep-alive connection for calls in sequence, streams included", async () => {
    let connections = 0;
    const { baseURL, server } = await serve((incoming, response) => {
      if (incoming.url?.endsWith("/chat/completions")) {
        sseHead(response);
        response.end(`${chunk("x", "stop")}data: [DONE]\n\n`);
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "list", data: [{ id: "beta-4o", object: "model", owned_by: "svc" }] }));
    });
    server.on("connection", () => connections++);
    const gateway = client(baseURL);
    // undici hands a socket back to the pool a moment after its body ended.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
    for (let index = 0; index < 3; index++) {
      const { models } = await gateway.listModels();
      expect(models.data[0]?.id).toBe("beta-4o");
      await pause();
      await drain(await gateway.chatStream(request));
      await pause();
    }
    expect(connections).toBe(1);
  });

  it("refuses a JSON answer to a stream request", async () => {
    const { baseURL } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
    await expect(client(baseURL).chatStream(request)).rejects.toThrow(/application\/json instead of an event stream/);
  });
});

describe("requests refused or aborted before sending", () => {
  it("throws AbortedError for a signal aborted before the call", async () => {
    let requests = 0;
    const { baseURL } = await serve((_request, response) => {
      requests++;
      response.end("{}");
    });
    const controller = new AbortController();
    controller.abort();
    await expect(client(baseURL).chat(request, { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(requests).toBe(0);
  });

  it("throws ParameterError for a request that breaks the wire schema, without sending it", async () => {
    let requests = 0;
    const { baseURL } = await serve((_request, response) => {
      requests++;
      response.end("{}");
    });
    await expect(client(baseURL).chat({ model: "beta-4o", messages: [] })).rejects.toBeInstanceOf(ParameterError);
    expect(requests).toBe(0);
  });
});

describe("MusicClient downloads", () => {
  it("sends the key to the gateway's own origin and never to another one", async () => {
    const seen: Array<string | undefined> = [];
    const handler: Handler = (incoming, response) => {
      seen.push(incoming.headers.authorization);
      response.writeHead(200, { "content-type": "audio/wav" });
      response.end("RIFF....");
    };
    const own = await serve(handler);
    const other = await serve(handler);
    const music = new MusicClient({ apiKey: API_KEY, baseURL: own.baseURL });
    try {
      const ownURL = own.baseURL.replace(/\/v1$/, "/musicapi/audio/a.wav");
      const otherURL = other.baseURL.replace(/\/v1$/, "/cdn/b.wav");
      expect((await music.download({ id: "a", audio_url: ownURL })).bytes.toString()).toBe("RIFF....");
      await music.download({ id: "b", audio_url: otherURL });
      expect(seen).toEqual([`Bearer ${API_KEY}`, undefined]);
    } finally {
      await music.close();
    }
  });

  it("resolves a relative audio_url against the music root", async () => {
    let path: string | undefined;
    const { baseURL } = await serve((incoming, response) => {
      path = incoming.url;
      response.end("RIFF");
    });
    const music = new MusicClient({ apiKey: API_KEY, baseURL });
    try {
      await music.download({ id: "a", audio_url: "musicapi/audio/a.wav" });
      expect(path).toBe("/musicapi/audio/a.wav");
    } finally {
      await music.close();
    }
  });
});

describe("errorFromNetwork", () => {
  it("maps undici's connect timeout to TimeoutError", () => {
    const error = errorFromNetwork(new undiciErrors.ConnectTimeoutError(), { url: "http://h/v1/models" });
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("maps a reset socket to a retryable connection_error", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(errorFromNetwork(reset, { url: "http://h/v1/models" })).toMatchObject({
      code: "connection_error",
      retryable: true,
    });
  });
});
