// Replies taken from the relays' own code, issues and docs (sources in docs/dialects.md), played
// by a tiny real HTTP server: the client gives the right text, tool calls, usage and typed errors,
// and never hangs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  KeyDeactivatedError,
  ModelAccessError,
  QuotaExceededError,
  RateLimitError,
  UpstreamError,
} from "../src/errors.js";
import { callChat } from "../src/chat/call-chat.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { startLocalGateway } from "../src/server/index.js";
import { startFixtureRelay, type Fixture, type FixtureRelay } from "./relay-fixture-server.js";

const sse = (value: unknown) => JSON.stringify(value);
let relay: FixtureRelay;

beforeAll(async () => {
  relay = await startFixtureRelay();
});
afterAll(async () => relay.close());

/** Calls the chat core with the fixture as the gateway's answer: the complete reply, or `{ error }`. */
const call = (name: string, fixture: Fixture, stream: boolean, fallbacks: string[] = []) =>
  relay.call(name, fixture, stream, { fallbacks });

describe("replies as relays send them", () => {
  it("reads one-api's Gemini tool-call reply: no content key, finish_reason stop, the requested model name", async () => {
    // relay/adaptor/gemini/main.go responseGeminiChat2OpenAI + getToolCalls
    const reply = await call(
      "one-api gemini tool call",
      {
        json: {
          id: "chatcmpl-8b9f5c36-5a1e-4c1f-9f0e-6a1e2b3c4d5e",
          model: "gemini-1.5-pro",
          object: "chat.completion",
          created: 1720000000,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                tool_calls: [
                  {
                    id: "call_1f0c",
                    type: "function",
                    function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
                  },
                ],
              },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 31, completion_tokens: 9, total_tokens: 40 },
        },
      },
      false,
    );
    expect(reply).toMatchObject({
      toolCalls: [{ id: "call_1f0c", name: "get_weather", arguments: { city: "Oslo" } }],
      usage: { total_tokens: 40 },
    });
  });

  it("reads Azure's stream: the prompt-annotation first chunk and the closing annotation without delta", async () => {
    // openai/openai-python#1677 (asynchronous content filter)
    const filter = { hate: { filtered: false, severity: "safe" } };
    const reply = await call(
      "azure async filter",
      {
        events: [
          sse({
            id: "",
            object: "",
            created: 0,
            model: "",
            prompt_annotations: [{ prompt_index: 0, content_filter_results: filter }],
            choices: [],
            usage: null,
          }),
          sse({
            id: "chatcmpl-7rCN",
            object: "chat.completion.chunk",
            created: 1692913344,
            model: "gpt-35-turbo",
            choices: [{ index: 0, finish_reason: null, delta: { role: "assistant" } }],
            usage: null,
          }),
          sse({
            id: "chatcmpl-7rCN",
            object: "chat.completion.chunk",
            created: 1692913344,
            model: "gpt-35-turbo",
            choices: [{ index: 0, finish_reason: null, delta: { content: "Color" } }],
            usage: null,
          }),
          sse({
            id: "chatcmpl-7rCN",
            object: "chat.completion.chunk",
            created: 1692913344,
            model: "gpt-35-turbo",
            choices: [{ index: 0, finish_reason: "stop", delta: {} }],
            usage: null,
          }),
          sse({
            id: "",
            object: "",
            created: 0,
            model: "",
            choices: [
              {
                index: 0,
                finish_reason: null,
                content_filter_results: filter,
                content_filter_offsets: { check_offset: 35, start_offset: 35, end_offset: 36 },
              },
            ],
            usage: null,
          }),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ content: "Color", finishReason: "stop", responseId: "chatcmpl-7rCN" });
  });

  it("assembles Gemini's index-less tool call and keeps its thought signature", async () => {
    // THU-MAIC/OpenMAIC#1556 (measured chunk from Google's OpenAI-compatible endpoint)
    const reply = await call(
      "gemini compat tool call",
      {
        events: [
          sse({
            choices: [
              {
                delta: {
                  role: "assistant",
                  tool_calls: [
                    {
                      extra_content: { google: { thought_signature: "c2ln" } },
                      function: { arguments: '{"offset":1,"limit":100,"path":"SKILL.md"}', name: "read" },
                      id: "call_297140",
                      type: "function",
                    },
                  ],
                },
                index: 0,
              },
            ],
            model: "gemini-3-flash",
            object: "chat.completion.chunk",
          }),
          sse({
            choices: [{ delta: { role: "assistant" }, finish_reason: "stop", index: 0 }],
            model: "gemini-3-flash",
            object: "chat.completion.chunk",
            usage: { completion_tokens: 20, prompt_tokens: 60, total_tokens: 80 },
          }),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({
      toolCalls: [{ id: "call_297140", name: "read", arguments: { offset: 1, limit: 100, path: "SKILL.md" } }],
      usage: { total_tokens: 80 },
    });
    expect(JSON.stringify((reply as { toolCallExtras: unknown }).toolCallExtras)).toContain("c2ln");
  });

  it("keeps the usage of grok's second-to-last chunk when a last chunk with empty choices follows", async () => {
    // BerriAI/litellm#17136
    const head = { id: "923d4779", created: 1764152777, model: "grok-4-1-fast", object: "chat.completion.chunk" };
    const reply = await call(
      "grok usage",
      {
        events: [
          sse({ ...head, choices: [{ index: 0, delta: { content: "Hello!", role: "assistant" } }] }),
          sse({
            ...head,
            choices: [{ index: 0, finish_reason: "stop", delta: {} }],
            usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
          }),
          sse({ ...head, choices: [] }),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({
      content: "Hello!",
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
  });

  it("reads Mistral's `usage: {}` on every chunk as no usage, not as zero", async () => {
    // BerriAI/litellm#1371
    const head = { id: "cmpl-04a2", created: 1704731507, model: "mistral-medium", object: "chat.completion.chunk" };
    const reply = await call(
      "mistral empty usage",
      {
        events: [
          sse({
            ...head,
            choices: [{ index: 0, delta: { content: " let go of your", role: "assistant" }, finish_reason: null }],
            usage: {},
          }),
          sse({ ...head, choices: [{ index: 0, delta: { content: " sight" }, finish_reason: "stop" }], usage: {} }),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ content: " let go of your sight" });
    expect((reply as { usage?: unknown }).usage).toBeUndefined();
  });
});

describe("errors as relays send them", () => {
  it("turns LiteLLM's in-band error event, with no [DONE] after it, into an UpstreamError, not an empty answer", async () => {
    // BerriAI/litellm#40578, proxy_server.py async_data_generator
    const result = await call(
      "litellm in-band error",
      {
        events: [
          sse({
            error: {
              message: "litellm.ServiceUnavailableError: engine queue full",
              type: "None",
              param: "None",
              code: "503",
            },
          }),
        ],
        noDone: true,
      },
      true,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(UpstreamError);
  });

  it("turns new-api's relay_stream_error chunk after partial text into an UpstreamError, not the partial as an answer", async () => {
    // QuantumNous/new-api relay/helper/relay_terminal_guard.go (EmitRelayFailureTerminal): an error
    // beside `choices: []`, then [DONE], when the upstream died mid-stream.
    const result = await call(
      "new-api terminal guard",
      {
        events: [
          sse({
            id: "chatcmpl-n",
            object: "chat.completion.chunk",
            choices: [{ index: 0, delta: { content: "The answer is" }, logprobs: null, finish_reason: null }],
            usage: null,
          }),
          sse({
            id: "relay-error-scanner_error",
            object: "chat.completion.chunk",
            choices: [],
            error: {
              message: "stream relay failure: scanner_error: unexpected EOF",
              type: "relay_stream_error",
              code: "upstream_stream_failure_scanner_error",
              param: null,
            },
          }),
        ],
      },
      true,
    );
    const error = (result as { error: UpstreamError }).error;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.message).toContain("scanner_error");
  });

  it("turns OpenRouter's mid-stream error chunk (numeric code, finish_reason error) into an UpstreamError", async () => {
    const result = await call(
      "openrouter mid-stream error",
      {
        events: [
          ": OPENROUTER PROCESSING",
          sse({
            id: "cmpl-abc123",
            object: "chat.completion.chunk",
            created: 1234567890,
            model: "gpt-3.5-turbo",
            provider: "openai",
            error: { code: 502, message: "Provider disconnected unexpectedly" },
            choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
          }),
        ],
      },
      true,
    );
    const error = (result as { error: UpstreamError }).error;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.message).toContain("Provider disconnected unexpectedly");
  });

  it.each([
    [
      "Azure's 429 that links to its quota increase form",
      {
        error: {
          code: "429",
          message:
            "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-05-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 2 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.",
        },
      },
    ],
    [
      "Gemini's per-minute 429 in quota words",
      {
        error: {
          code: 429,
          message:
            "You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 15. Please retry in 41.1s.",
          status: "RESOURCE_EXHAUSTED",
        },
      },
    ],
  ])("maps %s to a RateLimitError that is retried, not a spent quota", async (name, json) => {
    // microsoft/PubSec-Info-Assistant#479, alex-wolf-ps/dbchatprov2#2 (Azure); the Gemini API's
    // RESOURCE_EXHAUSTED for a per-minute limit. Read as a spent quota, neither was retried and the
    // message said to top up the key.
    for (const stream of [false, true]) {
      const result = await call(`${name} ${stream}`, { status: 429, json, headers: { "retry-after": "2" } }, stream);
      const error = (result as { error: RateLimitError }).error;
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ retryable: true, retryAfterS: 2 });
    }
  });

  it.each([
    [
      "new-api's 403 insufficient_user_quota",
      403,
      {
        error: {
          message: "User's credit limit is insufficient, remaining credit limit: $0.000000",
          type: "new_api_error",
          code: "insufficient_user_quota",
        },
      },
    ],
    [
      "one-api's 403 pre_consume_token_quota_failed",
      403,
      {
        error: { message: "token quota is not enough", type: "one_api_error", code: "pre_consume_token_quota_failed" },
      },
    ],
    [
      "OpenRouter's 402",
      402,
      { error: { code: 402, message: "This request requires more credits, or fewer max_tokens." } },
    ],
    [
      "LiteLLM's 400 budget_exceeded",
      400,
      {
        error: {
          message: "Budget has been exceeded! Current cost: 0.51, Max budget: 0.5",
          type: "budget_exceeded",
          param: "None",
          code: "400",
        },
      },
    ],
  ])("maps %s to a QuotaExceededError that names no key fix", async (name, status, json) => {
    const result = await call(name, { status, json }, false);
    const error = (result as { error: QuotaExceededError }).error;
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error.retryable).toBe(false);
    expect(error.message).not.toMatch(/SVC_API_KEY/);
  });

  it.each([
    [
      "one-api's 403 该令牌无权使用模型",
      403,
      { error: { message: "该令牌无权使用模型：gpt-4o (request id: 2024031418063867)", type: "one_api_error" } },
    ],
    [
      "a new-api style 403 with no access to the model",
      403,
      { error: { message: "This token has no access to model gpt-image-2-ppt", type: "new_api_error" } },
    ],
    [
      "LiteLLM's 401 key_model_access_denied",
      401,
      {
        error: {
          message:
            "Authentication Error, API Key not allowed to access model. This token can only access models=['gpt-4o-mini']. Tried to access gpt-4o",
          type: "key_model_access_denied",
          param: "model",
          code: "401",
        },
      },
    ],
  ])("maps %s to a ModelAccessError, and a fallback model answers", async (name, status, json) => {
    const denied = await call(name, { status, json }, false);
    expect((denied as { error: unknown }).error).toBeInstanceOf(ModelAccessError);
    relay.set(`${name}@alpha-haiku-4-5-20251001`, {
      json: {
        id: "chatcmpl-ok",
        object: "chat.completion",
        created: 1,
        model: "alpha-haiku-4-5-20251001",
        choices: [{ index: 0, message: { role: "assistant", content: "From the fallback." }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      },
    });
    const reply = await call(name, { status, json }, false, ["alpha-haiku-4-5-20251001"]);
    expect(reply).toMatchObject({
      content: "From the fallback.",
      model: "alpha-haiku-4-5-20251001",
      fallbackFrom: ["beta-4o"],
    });
  });

  it("reads one-api's 401 该令牌额度已用尽 as a deactivated key", async () => {
    const result = await call(
      "one-api exhausted token",
      {
        status: 401,
        json: {
          error: { message: "该令牌额度已用尽 (request id: 20240314180638675032749TVFiqyF1)", type: "one_api_error" },
        },
      },
      false,
    );
    expect((result as { error: unknown }).error).toBeInstanceOf(KeyDeactivatedError);
  });

  it("keeps the message of a 200 whose body is new-api's error", async () => {
    const result = await call(
      "new-api 200 error body",
      { json: { error: { message: "当前分组 chatfire 下对于模型 ERNIE-Bot 无可用渠道", type: "new_api_error" } } },
      false,
    );
    const error = (result as { error: Error }).error;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.message).toContain("无可用渠道");
  });
});

describe("the azure dialect's rate limit", () => {
  it("is retried after its Retry-After, and ends as a RateLimitError, not a spent quota", async () => {
    const gateway = await startLocalGateway({
      config: { dialect: "azure", faults: { models: { "beta-4o-mini": { rateLimitRate: 1, retryAfterS: 0.01 } } } },
    });
    const client = new GatewayClient({ apiKey: "sk-local-demo", baseURL: gateway.baseURL });
    const retried: string[] = [];
    try {
      const request = { model: "beta-4o-mini", messages: [{ role: "user" as const, content: "Hi." }] };
      const options = {
        client,
        retry: { attempts: 2, minDelayMs: 1 },
        onRetry: (retry: { error: Error }) => retried.push(retry.error.name),
      };
      await expect(callChat(request, options)).rejects.toBeInstanceOf(RateLimitError);
      expect(retried).toEqual(["RateLimitError"]);
    } finally {
      await client.close();
      await gateway.close();
    }
  });
});

describe("one-api's Gemini tool call without arguments", () => {
  it('reads its "null" arguments as none, in the chat core and ChatGateway, streamed and not', async () => {
    // songquanpeng/one-api relay/adaptor/gemini/main.go getToolCalls: json.Marshal of Gemini's absent
    // `args` gives "null". Read as arguments that are not an object, the call was dropped from a
    // whole reply (an empty answer) and failed a stream.
    const gateway = await startLocalGateway({ config: { dialect: "one-api-gemini" } });
    const client = new GatewayClient({ apiKey: "sk-local-demo", baseURL: gateway.baseURL });
    const clock = {
      type: "function" as const,
      function: { name: "get_time", description: "The current time", parameters: { type: "object", properties: {} } },
    };
    const prompt = "What time is it? Use the get_time tool.";
    try {
      const request = {
        model: "gamma-2.5-flash",
        tools: [clock],
        messages: [{ role: "user" as const, content: prompt }],
      };
      const whole = await callChat(request, { client, retry: { attempts: 1 } });
      expect(whole.toolCalls).toEqual([expect.objectContaining({ name: "get_time", arguments: {} })]);
      let streamed: unknown;
      for await (const event of await callChat({ ...request, stream: true }, { client, retry: { attempts: 1 } }))
        if (event.type === "finish") streamed = event.reply;
      expect(streamed).toMatchObject({ toolCalls: [{ name: "get_time", arguments: {} }] });
      const model = new ChatGateway({ model: "gamma-2.5-flash", apiKey: "sk-local-demo", baseURL: gateway.baseURL });
      const invoked = await model.bindTools([clock]).invoke(prompt);
      expect(invoked.tool_calls).toEqual([expect.objectContaining({ name: "get_time", args: {} })]);
      await model.close();
    } finally {
      await client.close();
      await gateway.close();
    }
  });
});
