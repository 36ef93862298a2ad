// A tiny real HTTP server that answers each chat request with a reply a relay is documented to
// send (a fixture), picked by the last message's text; for the dialect fixture tests.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { callChat } from "../src/chat/call-chat.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";

/** What the server answers to a request for a model: a status, and SSE events, JSON or raw bytes. */
export interface Fixture {
  readonly status?: number;
  /** `data:` events (or `:` comments), each framed with "\n\n", then `data: [DONE]`. */
  readonly events?: readonly string[];
  /** End a stream without `data: [DONE]`. */
  readonly noDone?: boolean;
  readonly json?: unknown;
  /** The body exactly as these pieces, each written (and flushed) on its own: framing and byte
   * splits as they came. */
  readonly raw?: readonly (string | Buffer)[];
  /** The content type of a raw body; default text/event-stream, null for none. */
  readonly contentType?: string | null;
  /** More response headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Keep the connection open after the last raw piece instead of ending the body. */
  readonly hold?: boolean;
}

/** A file the relay serves to GET requests (an image a reply links to). */
export interface ServedFile {
  readonly contentType?: string;
  readonly body: string | Buffer;
  /** Answer with headers only and never send the body. */
  readonly stall?: boolean;
}

/** Which models a call asks for: the model (default beta-4o) and its fallbacks. */
export interface FixtureCallOptions {
  readonly model?: string;
  readonly fallbacks?: string[];
}

/** A fixture relay on a free port, and a client of it. */
export interface FixtureRelay {
  /** The relay's versioned root, ending in /v1. */
  readonly baseURL: string;
  /** The client calls go through. */
  readonly client: GatewayClient;
  /** Calls the chat core with the fixture as the answer: the complete reply (read from the
   * stream's finish event when streamed), or `{ error }`. */
  call(name: string, fixture: Fixture, stream: boolean, options?: FixtureCallOptions): Promise<unknown>;
  /** Sets the fixture for a name, or for a name and model (`name@model`). */
  set(key: string, fixture: Fixture): void;
  /** Serves a file at a path (starting with /); returns its absolute URL. */
  serve(path: string, file: ServedFile): string;
  close(): Promise<void>;
}

/** Starts a fixture relay on 127.0.0.1. */
export async function startFixtureRelay(): Promise<FixtureRelay> {
  const fixtures = new Map<string, Fixture>();
  const files = new Map<string, ServedFile>();
  const server: Server = createServer(async (request, response) => {
    if (request.method === "GET") {
      const file = files.get(request.url ?? "");
      if (file === undefined) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      response.writeHead(200, file.contentType === undefined ? {} : { "content-type": file.contentType });
      if (file.stall) response.flushHeaders();
      else response.end(file.body);
      return;
    }
    let text = "";
    for await (const piece of request) text += String(piece);
    const body = JSON.parse(text) as { model: string; messages: Array<{ content: string }> };
    const name = body.messages.at(-1)!.content;
    const fixture = fixtures.get(`${name}@${body.model}`) ?? fixtures.get(name)!;
    if (fixture.json !== undefined) {
      response.writeHead(fixture.status ?? 200, { "content-type": "application/json", ...fixture.headers });
      response.end(JSON.stringify(fixture.json));
      return;
    }
    const contentType = fixture.contentType === undefined ? "text/event-stream" : fixture.contentType;
    response.writeHead(fixture.status ?? 200, {
      ...(contentType === null ? {} : { "content-type": contentType }),
      ...fixture.headers,
    });
    if (fixture.raw !== undefined) {
      for (const piece of fixture.raw) {
        response.write(piece);
        // Separate writes, so the client sees the pieces as separate reads.
        await sleep(5);
      }
      if (!fixture.hold) response.end();
      return;
    }
    for (const event of fixture.events ?? [])
      response.write(event.startsWith(":") ? `${event}\n\n` : `data: ${event}\n\n`);
    response.end(fixture.noDone ? "" : "data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new GatewayClient({ apiKey: "sk-fixture", baseURL: `${origin}/v1`, chunkTimeoutMs: 2000 });
  return {
    baseURL: `${origin}/v1`,
    client,
    async call(name, fixture, stream, { model = "beta-4o", fallbacks = [] } = {}) {
      fixtures.set(name, fixture);
      const request = { model, fallbacks, messages: [{ role: "user" as const, content: name }] };
      const options = { client, retry: { attempts: 1 } };
      try {
        if (!stream) return await callChat(request, options);
        for await (const event of await callChat({ ...request, stream: true }, options))
          if (event.type === "finish") return event.reply;
        throw new Error("The stream ended without a finish event.");
      } catch (error) {
        return { error };
      }
    },
    set(key, fixture) {
      fixtures.set(key, fixture);
    },
    serve(path, file) {
      files.set(path, file);
      return `${origin}${path}`;
    },
    async close() {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
