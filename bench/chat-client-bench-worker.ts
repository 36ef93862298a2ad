// One client of chat-client.bench.ts in a fresh process, so its CPU time and memory are its own:
// argv is CLIENT CASE BASE_URL CONCURRENCY REQUESTS WARMUP. Sends the same sequence of requests
// whichever the client, keeps CONCURRENCY in flight, and reports the CPU time of the measured
// requests (warm-up left out), the wall time, and the process's peak RSS.
import type { BaseMessage } from "@langchain/core/messages";
import { Pool } from "undici";
import { cpuTimeMs } from "./harness.js";

/** What the parent gets back. */
export interface WorkerResult {
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly requests: number;
  /** Chunks the client yielded (each client counts its own way); 0 without streaming. */
  readonly chunks: number;
  /** SSE data events on the wire, counted by the raw client only. */
  readonly wireChunks: number;
  readonly peakRssBytes: number;
}

export type ClientName = "raw" | "core" | "sdk" | "gateway" | "openai";
export type CaseName = "non-stream" | "stream" | "tool-stream" | "429" | "in-flight";

const API_KEY = "sk-local-demo";
/** Retries each client may make of one request (the 429 case's gateway refuses about a fifth). */
const MAX_RETRIES = 20;
const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      },
      required: ["city"],
    },
  },
};

// Each request is new (a counter in the prompt), so the gateway simulates it rather than replaying.
// The 429 case's model is the one the bench gateway rate-limits (see batch-gateway-server.ts).
const PROMPTS: Record<
  CaseName,
  { model: string; text: (n: string) => string; maxTokens?: number; tools: boolean; stream: boolean }
> = {
  "non-stream": {
    model: "beta-4o-mini",
    text: (n) => `Summarise the benefits of unit tests in two sentences (${n}).`,
    tools: false,
    stream: false,
  },
  stream: {
    model: "beta-4o-mini",
    text: (n) => `Write a detailed essay on why unit tests matter for a team shipping a web service (${n}).`,
    maxTokens: 400,
    tools: false,
    stream: true,
  },
  "tool-stream": {
    model: "beta-4o-mini",
    text: (n) => `What is the weather in Paris, London and Tokyo (${n})?`,
    tools: true,
    stream: true,
  },
  "429": {
    model: "beta-4o",
    text: (n) => `Summarise the benefits of unit tests in two sentences (${n}).`,
    tools: false,
    stream: false,
  },
  // Against a gateway with simulated latency, each svc-flow client built with its default options.
  "in-flight": {
    model: "beta-4o-mini",
    text: (n) => `Summarise the benefits of unit tests in two sentences (${n}).`,
    tools: false,
    stream: false,
  },
};

// The in-flight case measures what a user gets without tuning: no pool size, no client passed in.
const defaults = (caseName: CaseName): boolean => caseName === "in-flight";

type Send = (label: string) => Promise<{ chunks: number; wireChunks: number }>;

function rawClient(baseURL: string, shape: (typeof PROMPTS)[CaseName], concurrency: number): Send {
  const url = new URL(baseURL);
  const pool = new Pool(url.origin, { connections: concurrency });
  const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
  return async (label) => {
    const body = JSON.stringify({
      model: shape.model,
      messages: [{ role: "user", content: shape.text(label) }],
      ...(shape.maxTokens === undefined ? {} : { max_tokens: shape.maxTokens }),
      ...(shape.tools ? { tools: [WEATHER_TOOL] } : {}),
      ...(shape.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
    let response = await pool.request({ path: `${url.pathname}/chat/completions`, method: "POST", headers, body });
    // The least a client does on a 429: wait what Retry-After says, and send again.
    for (let retry = 0; response.statusCode === 429 && retry < MAX_RETRIES; retry++) {
      await response.body.text();
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers["retry-after"] ?? 0) * 1000));
      response = await pool.request({ path: `${url.pathname}/chat/completions`, method: "POST", headers, body });
    }
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${await response.body.text()}`);
    if (!shape.stream) {
      JSON.parse(await response.body.text());
      return { chunks: 0, wireChunks: 0 };
    }
    // The least any client does with a stream: split the events and parse each one's JSON.
    let buffer = "";
    let events = 0;
    response.body.setEncoding("utf8");
    for await (const piece of response.body as AsyncIterable<string>) {
      buffer += piece;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
        JSON.parse(event.slice(6));
        events++;
      }
    }
    return { chunks: events, wireChunks: events };
  };
}

// svc-flow's chat core: callChat with wire messages.
async function coreClient(
  baseURL: string,
  shape: (typeof PROMPTS)[CaseName],
  concurrency: number,
  caseName: CaseName,
): Promise<Send> {
  const { callChat, GatewayClient } = await import("svc-flow");
  const client = new GatewayClient({
    apiKey: API_KEY,
    baseURL,
    ...(defaults(caseName) ? {} : { connections: concurrency }),
  });
  const options = defaults(caseName)
    ? { client, onWarning: () => {} }
    : { client, retry: { attempts: MAX_RETRIES + 1 }, onWarning: () => {} };
  return async (label) => {
    const call = {
      model: shape.model,
      messages: [{ role: "user" as const, content: shape.text(label) }],
      ...(shape.maxTokens === undefined ? {} : { max_tokens: shape.maxTokens }),
      ...(shape.tools ? { tools: [WEATHER_TOOL] } : {}),
    };
    if (!shape.stream) {
      await callChat(call, options);
      return { chunks: 0, wireChunks: 0 };
    }
    let chunks = 0;
    for await (const _event of await callChat({ ...call, stream: true }, options)) chunks++;
    return { chunks, wireChunks: 0 };
  };
}

// The official openai SDK (its own fetch, retries and SSE reader).
async function sdkClient(baseURL: string, shape: (typeof PROMPTS)[CaseName]): Promise<Send> {
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI({ apiKey: API_KEY, baseURL, maxRetries: MAX_RETRIES });
  return async (label) => {
    const request = {
      model: shape.model,
      messages: [{ role: "user" as const, content: shape.text(label) }],
      ...(shape.maxTokens === undefined ? {} : { max_tokens: shape.maxTokens }),
      ...(shape.tools ? { tools: [WEATHER_TOOL] } : {}),
    };
    if (!shape.stream) {
      await client.chat.completions.create(request);
      return { chunks: 0, wireChunks: 0 };
    }
    let chunks = 0;
    const stream = await client.chat.completions.create({
      ...request,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) chunks++;
    return { chunks, wireChunks: 0 };
  };
}

// The LangChain clients are imported only in their own process, so each RSS counts only its own code.
async function gatewayClient(
  baseURL: string,
  shape: (typeof PROMPTS)[CaseName],
  concurrency: number,
  caseName: CaseName,
): Promise<Send> {
  const { ChatGateway } = await import("svc-flow/langchain");
  if (defaults(caseName))
    return await languageModel(new ChatGateway({ model: shape.model, apiKey: API_KEY, baseURL }), shape);
  const { GatewayClient } = await import("svc-flow");
  const client = new GatewayClient({ apiKey: API_KEY, baseURL, connections: concurrency });
  const model = new ChatGateway({
    model: shape.model,
    client,
    maxRetries: MAX_RETRIES,
    onWarning: () => {},
    ...(shape.maxTokens === undefined ? {} : { maxTokens: shape.maxTokens }),
  });
  const runnable = shape.tools ? model.bindTools([WEATHER_TOOL]) : model;
  return await languageModel(runnable, shape);
}

async function openaiClient(baseURL: string, shape: (typeof PROMPTS)[CaseName]): Promise<Send> {
  const { ChatOpenAI } = await import("@langchain/openai");
  const model = new ChatOpenAI({
    model: shape.model,
    apiKey: API_KEY,
    maxRetries: MAX_RETRIES,
    configuration: { baseURL },
    streamUsage: true,
    ...(shape.maxTokens === undefined ? {} : { maxTokens: shape.maxTokens }),
  });
  const runnable = shape.tools ? model.bindTools([WEATHER_TOOL]) : model;
  return await languageModel(runnable, shape);
}

interface LanguageModel {
  invoke(input: BaseMessage[]): Promise<unknown>;
  stream(input: BaseMessage[]): Promise<AsyncIterable<unknown>>;
}

async function languageModel(model: LanguageModel, shape: (typeof PROMPTS)[CaseName]): Promise<Send> {
  const { HumanMessage } = await import("@langchain/core/messages");
  return async (label) => {
    const messages = [new HumanMessage(shape.text(label))];
    if (!shape.stream) {
      await model.invoke(messages);
      return { chunks: 0, wireChunks: 0 };
    }
    let chunks = 0;
    for await (const _chunk of await model.stream(messages)) chunks++;
    return { chunks, wireChunks: 0 };
  };
}

async function drive(
  send: Send,
  prefix: string,
  total: number,
  concurrency: number,
): Promise<{ chunks: number; wireChunks: number }> {
  let next = 0;
  let chunks = 0;
  let wireChunks = 0;
  const worker = async () => {
    while (next < total) {
      const counted = await send(`${prefix} ${next++}`);
      chunks += counted.chunks;
      wireChunks += counted.wireChunks;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { chunks, wireChunks };
}

const [clientName, caseName, baseURL, concurrencyText, requestsText, warmupText] = process.argv.slice(2) as [
  ClientName,
  CaseName,
  string,
  string,
  string,
  string,
];
const concurrency = Number(concurrencyText);
const requests = Number(requestsText);
const shape = PROMPTS[caseName];
const clients: Record<ClientName, () => Send | Promise<Send>> = {
  raw: () => rawClient(baseURL, shape, concurrency),
  core: () => coreClient(baseURL, shape, concurrency, caseName),
  sdk: () => sdkClient(baseURL, shape),
  gateway: () => gatewayClient(baseURL, shape, concurrency, caseName),
  openai: () => openaiClient(baseURL, shape),
};
const send = await clients[clientName]();

await drive(send, "warm-up", Number(warmupText), concurrency);
let counted = { chunks: 0, wireChunks: 0 };
const started = performance.now();
const cpuMs = await cpuTimeMs(async () => {
  counted = await drive(send, "request", requests, concurrency);
});
const wallMs = performance.now() - started;
const result: WorkerResult = {
  cpuMs,
  wallMs,
  requests,
  ...counted,
  peakRssBytes: process.resourceUsage().maxRSS * 1024,
};
// Open keep-alive sockets would hold the process; it has nothing left to do.
process.send?.(result, () => process.exit(0));
