// Shared set-up of the ChatGateway tests: a real local gateway on port 0, and a tiny recording
// proxy in front of it that keeps every request body exactly as it went over the wire.
import { createServer } from "node:http";
import { afterAll, beforeAll } from "vitest";
import type { AddressInfo } from "node:net";
import { Readable, pipeline } from "node:stream";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import type { ChatGatewayOptions } from "../src/langchain/chat-gateway-options.js";
import type { ChatWarning } from "../src/chat/parameter-warning.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import type { GatewayConfigInput } from "../src/server/index.js";

/** The demo key the local gateway accepts without config. */
export const KEY = "sk-local-demo";

/** A request the proxy saw. */
export interface RecordedRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** A recording proxy in front of a gateway. */
export interface RecordingProxy {
  readonly baseURL: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Forwards every request to `targetRoot` and records its JSON body. */
export async function startRecordingProxy(targetRoot: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    if (text) requests.push({ path: request.url ?? "", body: JSON.parse(text) as Record<string, unknown> });
    try {
      const upstream = await fetch(`${targetRoot}${request.url ?? ""}`, {
        method: request.method ?? "GET",
        headers: { authorization: request.headers.authorization ?? "", "content-type": "application/json" },
        ...(text ? { body: text } : {}),
      });
      response.writeHead(upstream.status, Object.fromEntries(upstream.headers));
      if (!upstream.body) return void response.end();
      // A cut upstream connection is passed on as a cut connection.
      pipeline(Readable.fromWeb(upstream.body as import("node:stream/web").ReadableStream), response, (error) => {
        if (error) response.destroy();
      });
    } catch {
      response.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A gateway, a model factory bound to it, and what the models warned about. */
export interface Harness {
  readonly gateway: LocalGateway;
  readonly warnings: ChatWarning[];
  model(options: Omit<ChatGatewayOptions, "apiKey" | "baseURL"> & { apiKey?: string; baseURL?: string }): ChatGateway;
  close(): Promise<void>;
}

/** Starts a local gateway with `config` and returns a factory of models pointed at it. */
export async function startHarness(config: GatewayConfigInput = {}): Promise<Harness> {
  const gateway = await startLocalGateway({ config });
  const warnings: ChatWarning[] = [];
  const models: ChatGateway[] = [];
  return {
    gateway,
    warnings,
    model(options) {
      const model = new ChatGateway({
        apiKey: KEY,
        baseURL: gateway.baseURL,
        onWarning: (warning) => warnings.push(warning),
        retry: { minDelayMs: 1, maxDelayMs: 20 },
        ...options,
      });
      models.push(model);
      return model;
    },
    async close() {
      await Promise.all(models.map((model) => model.close()));
      await gateway.close();
    },
  };
}

/** A suite's harness with a recording proxy in front: started before its tests, closed after. */
export function useRecordedHarness(config: GatewayConfigInput = {}) {
  let harness: Harness | undefined;
  let proxy: RecordingProxy | undefined;
  beforeAll(async () => {
    harness = await startHarness(config);
    proxy = await startRecordingProxy(harness.gateway.rootURL);
  });
  afterAll(async () => {
    await proxy?.close();
    await harness?.close();
  });
  return {
    harness: (): Harness => harness!,
    proxy: (): RecordingProxy => proxy!,
    /** The body of the last request that went over the wire. */
    lastBody: (): Record<string, unknown> => proxy!.requests.at(-1)!.body,
  };
}
