import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "../src/gateway/wire.js";
import { inSchemaOrder, parseChatRequest } from "../src/server/parse-chat-request.js";

const WEATHER = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
// Each with its keys in the schemas' order.
const REQUESTS: Record<string, unknown>[] = [
  { model: "beta-4o-mini", messages: [{ role: "user", content: "Hi" }] },
  {
    model: "beta-4o-mini",
    messages: [
      { role: "system", content: "Be terse." },
      { role: "user", content: "Hi", name: "ann" },
    ],
    stream: true,
    stream_options: { include_usage: true },
    user: "u1",
  },
  {
    model: "beta-5",
    messages: [{ role: "user", content: "Weather?" }],
    max_completion_tokens: 50,
    tools: [WEATHER],
    tool_choice: { type: "function", function: { name: "get_weather" } },
    seed: 3,
  },
  {
    model: "gamma-2.5-pro",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" }, thought_signature: "s" }],
      },
      { role: "tool", content: "42", tool_call_id: "c1" },
      {
        role: "user",
        content: [
          { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
          { type: "video_url", video_url: { url: "data:video/mp4;base64,AAAA" } },
        ],
      },
    ],
    temperature: 0.5,
    top_p: 1,
    stop: ["END"],
    parallel_tool_calls: false,
    response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "object" } } },
    n: 1,
    extra: { any: 1 },
  },
];

// The value with the keys of every object in it put in an order the property picks.
function shuffled(value: unknown, pick: (length: number) => number): unknown {
  if (Array.isArray(value)) return value.map((entry) => shuffled(entry, pick));
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value);
  const order: [string, unknown][] = [];
  while (entries.length > 0) order.push(entries.splice(pick(entries.length), 1)[0]!);
  return JSON.parse(JSON.stringify(Object.fromEntries(order.map(([key, entry]) => [key, shuffled(entry, pick)]))));
}

function viaZod(body: unknown): string {
  return JSON.stringify(chatRequestSchema.safeParse(body));
}

describe("parseChatRequest", () => {
  it("gives exactly what zod gives, whatever the order of the request's keys", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...REQUESTS),
        fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
        (request, picks) => {
          let at = 0;
          const body = shuffled(request, (length) => picks[at++ % picks.length]! % length);
          expect(JSON.stringify(parseChatRequest(body))).toBe(viaZod(body));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("hands the body itself back when zod would copy it unchanged, and leaves the rest to zod", () => {
    for (const request of REQUESTS) {
      const body = JSON.parse(JSON.stringify(request));
      const parsed = parseChatRequest(body);
      expect(parsed.success && parsed.data).toBe(body);
    }
    const reordered = JSON.parse('{"messages":[{"role":"user","content":"Hi"}],"model":"beta-4o-mini"}');
    expect(inSchemaOrder(reordered)).toBe(false);
    expect(JSON.stringify(parseChatRequest(reordered))).toBe(viaZod(reordered));
    expect(inSchemaOrder(JSON.parse('{"model":"m","messages":[{"content":"Hi","role":"user"}]}'))).toBe(false);
    expect(
      inSchemaOrder(JSON.parse('{"model":"m","messages":[{"role":"user","content":"Hi"}],"zz":1,"stream":true}')),
    ).toBe(false);
  });

  it("leaves a __proto__ key, which zod drops, to zod", () => {
    for (const text of [
      '{"model":"m","messages":[{"role":"user","content":"Hi"}],"__proto__":{"x":1}}',
      '{"model":"m","messages":[{"role":"user","content":"Hi","__proto__":{"x":1}}]}',
      '{"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"__proto__":{"x":1}}}}]}',
    ]) {
      const body = JSON.parse(text);
      expect(inSchemaOrder(body)).toBe(false);
      expect(JSON.stringify(parseChatRequest(body))).toBe(viaZod(body));
    }
  });

  it("answers an invalid request as zod does", () => {
    for (const body of [
      {},
      { model: "m", messages: [] },
      { model: "m", messages: [{ role: "user", content: 1 }] },
      { model: "", messages: [{ role: "user", content: "x" }] },
      "text",
      null,
    ]) {
      expect(JSON.stringify(parseChatRequest(body))).toBe(viaZod(body));
    }
  });
});
