import { describe, expect, it } from "vitest";
import { catalog } from "../src/catalog/index.js";
import { countPromptTokens } from "../src/gateway/prompt-tokens.js";
import { chatChunkSchema, chatResponseSchema, type ChatChunk } from "../src/gateway/wire.js";
import { chatBody, postJson, sseEvents, useGateway } from "./server-helpers.js";

const gateway = useGateway({ config: { faults: { seed: 7 } } });
const url = () => `${gateway().baseURL}/chat/completions`;

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

async function stream(body: object): Promise<{ response: Response; events: unknown[] }> {
  const response = await postJson(url(), { ...body, stream: true });
  return { response, events: sseEvents(await response.text()) };
}

function chunksOf(events: unknown[]): ChatChunk[] {
  return events.filter((event) => event !== "[DONE]").map((event) => chatChunkSchema.parse(event));
}

describe("local gateway chat completions", () => {
  it("answers a non-streamed request with the wire format's completion", async () => {
    const request = chatBody("beta-4o", "Name three colours.");
    const response = await postJson(url(), request);
    expect(response.status).toBe(200);
    const body = chatResponseSchema.parse(await response.json());
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]!.message.role).toBe("assistant");
    expect(body.choices[0]!.finish_reason).toBeTruthy();
    expect(body.usage!.total_tokens).toBe(body.usage!.prompt_tokens + body.usage!.completion_tokens);
  });

  it("reports the model's dated version in `model`", async () => {
    const body = chatResponseSchema.parse(await (await postJson(url(), chatBody("alpha-sonnet-4-6"))).json());
    expect(body.model).toBe(catalog.getModel("alpha-sonnet-4-6").servedAs);
    expect(body.model).not.toBe("alpha-sonnet-4-6");
  });

  it("counts prompt tokens with the shared tokenizer", async () => {
    const request = {
      model: "beta-4o-mini",
      messages: [
        { role: "system" as const, content: "Be brief." },
        { role: "user" as const, content: "What is 2 + 2?" },
      ],
    };
    const body = chatResponseSchema.parse(await (await postJson(url(), request)).json());
    expect(body.usage!.prompt_tokens).toBe(countPromptTokens(request));
  });

  it("sets the three id headers on a completion", async () => {
    const response = await postJson(url(), chatBody("gamma-2.5-flash"));
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("x-svc-audit-id")).toBeTruthy();
    expect(response.headers.get("x-svc-backend-id")).toBe("local-gamma-1");
  });

  it("streams a role chunk, content deltas, a finish chunk and [DONE]", async () => {
    const { response, events } = await stream(chatBody("beta-4o", "Tell me a short story about a lighthouse."));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = chunksOf(events);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    const finish = chunks.at(-1)!;
    expect(finish.choices[0]!.finish_reason).toBeTruthy();
    expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0]!.finish_reason === null)).toBe(true);
    expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it("streams the same content a non-streamed request returns, in several deltas", async () => {
    const request = chatBody("alpha-haiku-4-5-20251001", "Describe the sea in two sentences.");
    const whole = chatResponseSchema.parse(await (await postJson(url(), request)).json());
    const chunks = chunksOf((await stream(request)).events);
    const deltas = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").filter((text) => text !== "");
    expect(deltas.join("")).toBe(whole.choices[0]!.message.content ?? "");
    if ((whole.choices[0]!.message.content ?? "").split(" ").length > 4) expect(deltas.length).toBeGreaterThan(1);
  });

  it("ends a stream with one usage chunk when stream_options.include_usage is set", async () => {
    const request = {
      model: "beta-4o",
      messages: [{ role: "user" as const, content: "Hello!" }],
      stream_options: { include_usage: true },
    };
    const chunks = chunksOf((await stream(request)).events);
    const usageChunks = chunks.filter((chunk) => chunk.usage);
    expect(usageChunks).toHaveLength(1);
    expect(chunks.at(-1)).toBe(usageChunks[0]);
    expect(usageChunks[0]!.choices).toEqual([]);
    const usage = usageChunks[0]!.usage!;
    expect(usage.prompt_tokens).toBe(countPromptTokens(request));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it("returns tool calls in a non-streamed reply", async () => {
    const request = chatBody("beta-4o", "What's the weather in Paris?", {
      tools: [weatherTool],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const body = chatResponseSchema.parse(await (await postJson(url(), request)).json());
    const calls = body.choices[0]!.message.tool_calls!;
    expect(body.choices[0]!.finish_reason).toBe("tool_calls");
    expect(calls[0]!.function.name).toBe("get_weather");
    expect(() => JSON.parse(calls[0]!.function.arguments)).not.toThrow();
  });

  it("streams a tool call as a head delta then argument fragments that join to the same JSON", async () => {
    const request = chatBody("beta-4o", "What's the weather in Paris?", {
      tools: [weatherTool],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const whole = chatResponseSchema.parse(await (await postJson(url(), request)).json());
    const chunks = chunksOf((await stream(request)).events);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const [head, ...rest] = deltas;
    expect(head).toMatchObject({
      index: 0,
      id: whole.choices[0]!.message.tool_calls![0]!.id,
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
    expect(rest.length).toBeGreaterThan(0);
    for (const delta of rest) expect(Object.keys(delta).sort()).toEqual(["function", "index"]);
    const joined = rest
      .filter((delta) => delta.index === 0)
      .map((delta) => delta.function?.arguments ?? "")
      .join("");
    expect(joined).toBe(whole.choices[0]!.message.tool_calls![0]!.function.arguments);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("keeps a tool call's extra fields (gamma's thought_signature) in plain and streamed replies", async () => {
    const request = chatBody("gamma-2.5-flash", "What's the weather in Paris?", {
      tools: [weatherTool],
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const whole = chatResponseSchema.parse(await (await postJson(url(), request)).json());
    const call = whole.choices[0]!.message.tool_calls![0]!;
    expect(call.thought_signature).toEqual(expect.any(String));
    const head = chunksOf((await stream(request)).events).flatMap(
      (chunk) => chunk.choices[0]?.delta.tool_calls ?? [],
    )[0]!;
    expect(head.thought_signature).toBe(call.thought_signature);
  });

  it("accepts a tool result turn and answers it", async () => {
    const request = {
      model: "beta-4o",
      tools: [weatherTool],
      messages: [
        { role: "user", content: "What's the weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"temperature_c":21}' },
      ],
    };
    const response = await postJson(url(), request);
    expect(response.status).toBe(200);
    expect(chatResponseSchema.parse(await response.json()).choices[0]!.finish_reason).not.toBe("tool_calls");
  });

  it("accepts a dated model version as `model`", async () => {
    const response = await postJson(url(), chatBody(catalog.getModel("beta-4o").servedAs));
    expect(response.status).toBe(200);
  });
});
