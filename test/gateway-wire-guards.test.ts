import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isChatChunk, isChatRequest, isChatResponse, mayBeErrorBody } from "../src/gateway/wire-guards.js";
import { chatChunkSchema, chatRequestSchema, chatResponseSchema, errorBodySchema } from "../src/gateway/wire.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";

const KEY = "sk-local-demo";
let gateway: LocalGateway;

beforeAll(async () => {
  gateway = await startLocalGateway({ port: 0 });
});
afterAll(async () => {
  await gateway.close();
});

async function post(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.text();
}

const WEATHER = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};

// A value and every path inside it, so a property can break the value at any one place.
function paths(value: unknown, prefix: PropertyKey[] = []): PropertyKey[][] {
  if (typeof value !== "object" || value === null) return [prefix];
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return [prefix, ...keys.flatMap((key) => paths((value as Record<PropertyKey, unknown>)[key], [...prefix, key]))];
}

function replaceAt(value: unknown, path: readonly PropertyKey[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<PropertyKey, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<PropertyKey, unknown>;
  parent[path.at(-1)!] = replacement;
  return copy;
}

const oddValues = fc.oneof(
  fc.constantFrom(null, undefined, "", "x", 0, -1, 1.5, 2 ** 60, true, [], {}, [1], { error: { message: "m" } }),
  fc.jsonValue(),
);

describe("wire guards", () => {
  it("accept every chunk and response the local gateway sends, text and tool calls alike", async () => {
    const messages = [{ role: "user", content: "What is the weather in Paris and Tokyo?" }];
    const bodies = [
      { model: "beta-4o-mini", messages },
      { model: "beta-4o-mini", messages, tools: [WEATHER] },
      { model: "beta-5-mini", messages, max_completion_tokens: 600 },
    ];
    for (const body of bodies) {
      const response: unknown = JSON.parse(await post(body));
      expect(isChatResponse(response)).toBe(true);
      const events = (await post({ ...body, stream: true, stream_options: { include_usage: true } }))
        .split("\n\n")
        .filter((event) => event.startsWith("data: {"))
        .map((event) => JSON.parse(event.slice("data: ".length)) as unknown);
      expect(events.length).toBeGreaterThan(2);
      for (const event of events) {
        expect(isChatChunk(event)).toBe(true);
        expect(mayBeErrorBody(event)).toBe(false);
      }
    }
  });

  it("never accept what zod refuses, and accept only values zod returns unchanged", async () => {
    const response: unknown = JSON.parse(
      await post({
        model: "beta-4o-mini",
        messages: [{ role: "user", content: "Weather in Oslo?" }],
        tools: [WEATHER],
      }),
    );
    const chunks = (
      await post({
        model: "beta-4o-mini",
        messages: [{ role: "user", content: "Weather in Oslo?" }],
        tools: [WEATHER],
        stream: true,
        stream_options: { include_usage: true },
      })
    )
      .split("\n\n")
      .filter((event) => event.startsWith("data: {"))
      .map((event) => JSON.parse(event.slice("data: ".length)) as unknown);
    const samples = [response, ...chunks];
    const broken = fc
      .constantFrom(...samples)
      .chain((sample) =>
        fc.tuple(fc.constantFrom(...paths(sample)), oddValues).map(([path, value]) => replaceAt(sample, path, value)),
      );
    fc.assert(
      fc.property(fc.oneof(broken, fc.jsonValue()), (value) => {
        const asChunk = chatChunkSchema.safeParse(value);
        if (isChatChunk(value)) {
          expect(asChunk.success).toBe(true);
          expect(asChunk.data).toEqual(value);
        }
        const asResponse = chatResponseSchema.safeParse(value);
        if (isChatResponse(value)) {
          expect(asResponse.success).toBe(true);
          expect(asResponse.data).toEqual(value);
        }
        if (errorBodySchema.safeParse(value).success) expect(mayBeErrorBody(value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("leave a value with an own __proto__ key (as JSON.parse makes it) to zod, which drops the key", () => {
    const chunk = JSON.parse(
      '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"__proto__":{"x":1},"content":"hi"},"finish_reason":null}]}',
    ) as unknown;
    expect(isChatChunk(chunk)).toBe(false);
    const parsed = chatChunkSchema.parse(chunk);
    expect(Object.keys(parsed.choices[0]!.delta)).toEqual(["content"]);
    const request = JSON.parse(
      '{"model":"beta-4o-mini","messages":[{"role":"user","content":"Hi"}],"__proto__":{"stream":true}}',
    ) as unknown;
    expect(isChatRequest(request)).toBe(false);
  });

  // Requests with every part the schema knows, so a property can break each of them.
  const REQUESTS: unknown[] = [
    { model: "beta-4o-mini", messages: [{ role: "user", content: "Hi" }], stream: false },
    {
      model: "gamma-2.5-pro",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          name: "ana",
          content: [
            { type: "text", text: "What is in these?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
            { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
            { type: "video_url", video_url: { url: "data:video/mp4;base64,AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "12 C" },
      ],
      tools: [WEATHER],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: true,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 4096,
      temperature: 0.5,
      top_p: 1,
      stop: ["\n\n", "END"],
      response_format: { type: "json_object" },
      n: 1,
      user: "u-1",
    },
    {
      model: "beta-5",
      messages: [{ role: "developer", content: "x" }],
      max_completion_tokens: 10,
      tool_choice: "auto",
      stop: "END",
    },
  ];

  it("accept the requests ChatGateway sends, and never a request zod refuses", () => {
    for (const request of REQUESTS) expect(isChatRequest(request)).toBe(true);
    const broken = fc
      .constantFrom(...REQUESTS)
      .chain((sample) =>
        fc.tuple(fc.constantFrom(...paths(sample)), oddValues).map(([path, value]) => replaceAt(sample, path, value)),
      );
    fc.assert(
      fc.property(fc.oneof(broken, fc.jsonValue()), (value) => {
        if (!isChatRequest(value)) return;
        const parsed = chatRequestSchema.safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(value);
      }),
      { numRuns: 3000 },
    );
  });
});
