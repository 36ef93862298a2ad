import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { catalog } from "../src/catalog/index.js";
import { useGateway } from "./server-helpers.js";

const gateway = useGateway({
  config: {
    keys: [{ key: "sk-test-sdk" }, { key: "sk-test-spent", quota: 0 }],
    faults: { models: { "alpha-opus-4-8": { errorRate: 1, status: 503 } } },
  },
});
// Only baseURL and apiKey, as a user of the SDK would change them.
const client = () => new OpenAI({ baseURL: gateway().baseURL, apiKey: "sk-test-sdk" });

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "lookup_order",
      description: "Look up an order by its number",
      parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    },
  },
];

describe("the openai SDK against the local gateway", () => {
  it("creates a chat completion", async () => {
    const completion = await client().chat.completions.create({
      model: "beta-4o",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Name a planet." },
      ],
    });
    expect(completion.model).toBe(catalog.getModel("beta-4o").servedAs);
    expect(typeof completion.choices[0]!.message.content).toBe("string");
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
  });

  it("exposes the gateway's request id", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: "beta-4o-mini", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(response.headers.get("x-svc-audit-id")).toBeTruthy();
  });

  it("streams a completion and gets usage in the final chunk", async () => {
    const stream = await client().chat.completions.create({
      model: "gamma-2.5-flash",
      messages: [{ role: "user", content: "Write two sentences about autumn." }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe("stop");
    expect(usage!.total_tokens).toBe(usage!.prompt_tokens + usage!.completion_tokens);
  });

  it("assembles a streamed tool call with the SDK's stream helper", async () => {
    const runner = client().chat.completions.stream({
      model: "beta-4o",
      messages: [{ role: "user", content: "Where is order 1234?" }],
      tools,
      tool_choice: { type: "function", function: { name: "lookup_order" } },
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type).toBe("function");
    if (call.type !== "function") return;
    expect(call.function.name).toBe("lookup_order");
    expect(JSON.parse(call.function.arguments)).toBeTypeOf("object");
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("runs a full tool round trip", async () => {
    const first = await client().chat.completions.create({
      model: "alpha-sonnet-4-6",
      messages: [{ role: "user", content: "Where is order 1234?" }],
      tools,
      tool_choice: "required",
    });
    const message = first.choices[0]!.message;
    const call = message.tool_calls![0]!;
    const second = await client().chat.completions.create({
      model: "alpha-sonnet-4-6",
      messages: [
        { role: "user", content: "Where is order 1234?" },
        message,
        { role: "tool", tool_call_id: call.id, content: JSON.stringify({ status: "shipped" }) },
      ],
      tools,
    });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content).toBeTruthy();
  });

  it("lists models and retrieves one", async () => {
    const ids: string[] = [];
    for await (const model of client().models.list()) ids.push(model.id);
    expect(ids).toEqual(catalog.listModels().map((model) => model.id));
    expect((await client().models.retrieve("beta-5")).id).toBe("beta-5");
  });

  it("raises the SDK's typed errors for 400, 401, 404 and 5xx", async () => {
    await expect(
      client().chat.completions.create({ model: "beta-5", messages: [{ role: "user", content: "x" }], max_tokens: 10 }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(new OpenAI({ baseURL: gateway().baseURL, apiKey: "sk-wrong" }).models.list()).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    await expect(client().embeddings.create({ model: "beta-4o", input: "hello" })).rejects.toMatchObject({
      status: 404,
      code: "not_offered",
    });
    await expect(
      new OpenAI({ baseURL: gateway().baseURL, apiKey: "sk-test-sdk", maxRetries: 0 }).chat.completions.create({
        model: "alpha-opus-4-8",
        messages: [{ role: "user", content: "x" }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  });

  it("does not retry a deactivated key", async () => {
    const spent = new OpenAI({ baseURL: gateway().baseURL, apiKey: "sk-test-spent" });
    await expect(spent.models.list()).rejects.toMatchObject({ status: 401, code: "key_deactivated" });
  });
});
