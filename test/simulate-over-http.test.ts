// The simulated models as a stock client sees them: the official openai SDK against the local gateway.
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePng } from "../src/media/png.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { sineWav } from "./media-builders.js";

let gateway: LocalGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startLocalGateway();
  client = new OpenAI({ apiKey: "sk-local-demo", baseURL: gateway.baseURL, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.close();
});

const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Get the current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

describe("simulated models over HTTP", () => {
  it("round-trips a gamma tool call with its thought_signature and answers from the result", async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "What's the weather in Oslo?" }];
    const first = await client.chat.completions.create({ model: "gamma-2.5-flash", messages, tools: [weather] });
    const call = first.choices[0]!.message.tool_calls![0]! as {
      id: string;
      function: { name: string; arguments: string };
      thought_signature?: string;
    };
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Oslo" });
    expect(call.thought_signature).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
    messages.push(first.choices[0]!.message as ChatCompletionMessageParam, {
      role: "tool",
      tool_call_id: call.id,
      content: '{"temperature": -3, "sky": "snow"}',
    });
    const second = await client.chat.completions.create({ model: "gamma-2.5-flash", messages, tools: [weather] });
    expect(second.choices[0]!.message.content).toMatch(/-3.*snow/);
    expect(second.choices[0]!.message.tool_calls ?? []).toEqual([]);
  });

  it("reports hidden reasoning tokens and the empty reply of a small budget", async () => {
    const prompt: ChatCompletionMessageParam[] = [
      { role: "user", content: "Explain step by step how a rainbow forms." },
    ];
    const enough = await client.chat.completions.create({
      model: "beta-5",
      messages: prompt,
      max_completion_tokens: 8000,
    });
    const reasoning = enough.usage!.completion_tokens_details!.reasoning_tokens!;
    expect(reasoning).toBeGreaterThan(0);
    expect(enough.choices[0]!.message.content).not.toBe("");
    const starved = await client.chat.completions.create({
      model: "beta-5",
      messages: prompt,
      max_completion_tokens: 50,
    });
    expect(starved.choices[0]!.message.content).toBe("");
    expect(starved.choices[0]!.finish_reason).toBe("length");
  });

  it("streams an image model's PNG and bills the audio of a WAV by its duration", async () => {
    const stream = await client.chat.completions.create({
      model: "gamma-2.5-flash-image",
      messages: [{ role: "user", content: "orange checkerboard" }],
      stream: true,
    });
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
    const png = decodePng(Buffer.from(/base64,([^)]+)\)/.exec(content)![1]!, "base64"));
    expect([png?.width, png?.height]).toEqual([256, 256]);

    const wav = sineWav({ hz: 220, seconds: 3 }).toString("base64");
    const heard = await client.chat.completions.create({
      model: "gamma-2.5-flash",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What pitch is this?" },
            { type: "input_audio", input_audio: { data: wav, format: "wav" } },
          ],
        },
      ],
    });
    expect(heard.choices[0]!.message.content).toMatch(/about 220 Hz \(A3\)/);
    expect(heard.usage!.prompt_tokens).toBeGreaterThanOrEqual(95);
  });
});
