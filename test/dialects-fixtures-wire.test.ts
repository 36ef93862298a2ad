// More replies as relays and OpenAI-compatible servers send them, each taken from the source cited
// beside it (docs/dialects.md lists them): stream shapes, SSE framing, finish reasons, and errors
// in the shapes proxies send. The client gives the right text, tool calls, usage and typed errors,
// and never hangs.
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  RateLimitError,
  StreamError,
  UpstreamError,
  type SvcFlowError,
} from "../src/errors.js";
import { callChat } from "../src/chat/call-chat.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { startFixtureRelay, type Fixture, type FixtureRelay } from "./relay-fixture-server.js";

const sse = (value: unknown) => JSON.stringify(value);
const HEAD = { id: "chatcmpl-fx", object: "chat.completion.chunk", created: 1720000000, model: "gpt-4o" };
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => sse({ ...HEAD, choices, ...extra });
const text = (content: string, finish: string | null = null) =>
  chunk([{ index: 0, delta: { content }, finish_reason: finish }]);
const USAGE = { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 };
/** A whole (non-streamed) reply of one choice with `message`'s fields, as a fixture's JSON body. */
const wholeReply = (message: Record<string, unknown>, finishReason: string) => ({
  json: {
    ...HEAD,
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finishReason }],
    usage: USAGE,
  },
});

let relay: FixtureRelay;
beforeAll(async () => {
  relay = await startFixtureRelay();
});
afterAll(async () => relay.close());

const call = (name: string, fixture: Fixture, stream: boolean) => relay.call(name, fixture, stream);
const errorOf = (result: unknown) => (result as { error: SvcFlowError }).error;

describe("stream shapes", () => {
  it("reads a role-only first delta with content null, and usage in a last chunk with empty choices", async () => {
    // OpenAI API reference (chat streaming, `stream_options.include_usage`: "choices ... empty for
    // the last chunk"); openai/openai-agents-js#107. LiteLLM PR #4828 shows `content: None` deltas.
    const reply = await call(
      "openai include_usage",
      {
        events: [
          chunk([{ index: 0, delta: { role: "assistant", content: null, refusal: null }, finish_reason: null }]),
          text("Blue"),
          text(" light scatters.", "stop"),
          chunk([], { usage: USAGE }),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ content: "Blue light scatters.", finishReason: "stop", usage: USAGE });
  });

  it("reads a usage chunk whose choices are null", async () => {
    // pydantic/pydantic-ai#5165 and PR #5170: OpenAI-compatible providers emit `choices: null`.
    const reply = await call(
      "choices null",
      { events: [text("Hi", "stop"), sse({ ...HEAD, choices: null, usage: USAGE })] },
      true,
    );
    expect(reply).toMatchObject({ content: "Hi", usage: USAGE });
  });

  it("reads chunks and replies whose `created` is a string", async () => {
    // sashabaranov/go-openai PR #1003 (issue #1002): a server sends `created` as a string; the
    // field is no part of the answer, and failing the chunk threw a good reply away.
    const stamp = { ...HEAD, created: "1720000000" };
    const streamed = await call(
      "created string streamed",
      { events: [sse({ ...stamp, choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] })] },
      true,
    );
    expect(streamed).toMatchObject({ content: "Hi", finishReason: "stop" });
    const whole = await call(
      "created string whole",
      {
        json: {
          ...stamp,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
          usage: USAGE,
        },
      },
      false,
    );
    expect(whole).toMatchObject({ content: "Hi", usage: USAGE });
  });

  it('reads finish_reason "" as not finished, so a stream that ends without a real one finishes with stop', async () => {
    // sgl-project/sglang#3912 (this chunk: `"finish_reason": ""`, every unset field null),
    // ollama/ollama#4357 and looplj/axonhub PR #2073 (Sensenova sends "" on every chunk): read as
    // a finish reason, "" made the stream look finished at its first chunk.
    const piece = (content: string) =>
      chunk([
        {
          index: 0,
          delta: { role: null, content, tool_calls: null },
          logprobs: null,
          finish_reason: "",
          matched_stop: null,
        },
      ]);
    const reply = await call("finish empty string", { events: [piece("Blue"), piece(" sky.")] }, true);
    expect(reply).toMatchObject({ content: "Blue sky.", finishReason: "stop" });
  });

  it("reads a streamed choice that carries `message` instead of `delta`", async () => {
    // Amm1rr/WebAI-to-API#55: with stream=true the chunks' choices held `message`, the whole
    // reply's shape; read as a missing delta, the text was dropped and the reply came back empty.
    const reply = await call(
      "message in a chunk",
      {
        events: [
          chunk([{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: null }]),
          chunk([{ index: 0, message: { role: "assistant", content: " there." }, finish_reason: "stop" }]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ content: "Hello there.", finishReason: "stop" });
  });

  it("keeps only the first choice when a server streams several choices by index", async () => {
    // OpenAI API reference, `n`: choices are told apart by `index` and may interleave.
    const reply = await call(
      "two choices",
      {
        events: [
          chunk([
            { index: 0, delta: { role: "assistant", content: "Red" }, finish_reason: null },
            { index: 1, delta: { role: "assistant", content: "Green" }, finish_reason: null },
          ]),
          chunk([{ index: 1, delta: { content: " grass" }, finish_reason: "stop" }]),
          chunk([{ index: 0, delta: { content: " sky" }, finish_reason: "stop" }]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ content: "Red sky", finishReason: "stop" });
  });

  it("assembles Claude's tool calls whose indices start at 1 after text", async () => {
    // aws-samples/bedrock-access-gateway#134, router-for-me/CLIProxyAPI#5229: a Claude upstream
    // numbers streamed tool calls from the Anthropic block index (1, 2, ...), not from 0.
    const call1 = { index: 1, id: "toolu_01Pf", type: "function", function: { name: "get_weather", arguments: "" } };
    const call2 = { index: 2, id: "toolu_01Vh", type: "function", function: { name: "get_time", arguments: "" } };
    const reply = await call(
      "claude tool index gap",
      {
        events: [
          text("Let me check."),
          chunk([{ index: 0, delta: { tool_calls: [call1] }, finish_reason: null }]),
          chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{"city": "Paris"}' } }] } }]),
          chunk([{ index: 0, delta: { tool_calls: [call2] }, finish_reason: null }]),
          chunk([{ index: 0, delta: { tool_calls: [{ index: 2, function: { arguments: '{"city": "Tokyo"}' } }] } }]),
          chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({
      content: "Let me check.",
      toolCalls: [
        { id: "toolu_01Pf", name: "get_weather", arguments: { city: "Paris" } },
        { id: "toolu_01Vh", name: "get_time", arguments: { city: "Tokyo" } },
      ],
      finishReason: "tool_calls",
    });
  });

  it("keeps one tool call when its id changes after the first fragment", async () => {
    // poolsideai/pool#9: the first tool_calls chunk carries one id with the name, every later
    // chunk of the same call (same index) another id; read as a new call, the arguments went to a
    // nameless second call and the named one ran with none.
    const piece = (id: string, args: string, name?: string) =>
      chunk([
        { index: 0, delta: { tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: args } }] } },
      ]);
    const reply = await call(
      "unstable tool call id",
      {
        events: [
          piece("call_first", "", "get_weather"),
          piece("call_second", '{"city": '),
          piece("call_second", '"Paris"}'),
          chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({
      toolCalls: [{ id: "call_first", name: "get_weather", arguments: { city: "Paris" } }],
      invalidToolCalls: [],
    });
  });

  it("keeps two complete tool calls that both come with index 0", async () => {
    // ollama/ollama#15457: several streamed tool calls, each whole, every one with `index: 0`.
    const reply = await call(
      "ollama index 0",
      {
        events: [
          chunk([
            {
              index: 0,
              delta: {
                tool_calls: [
                  { index: 0, id: "call_a", function: { name: "file_write", arguments: '{"filePath":"hello.py"}' } },
                ],
              },
            },
          ]),
          chunk([
            {
              index: 0,
              delta: {
                tool_calls: [
                  { index: 0, id: "call_b", function: { name: "file_write", arguments: '{"filePath":"world.py"}' } },
                ],
              },
            },
          ]),
          chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({
      toolCalls: [
        { id: "call_a", arguments: { filePath: "hello.py" } },
        { id: "call_b", arguments: { filePath: "world.py" } },
      ],
    });
  });

  it("assembles a tool call whose arguments are resent whole in every chunk, streamed or folded", async () => {
    // NousResearch/hermes-agent PR #35718: DeepSeek and Baidu Qianfan resend the arguments so far
    // in every chunk instead of the new piece; appended, they made invalid JSON.
    const sofar = (args: string, name?: string) =>
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_q1", function: { name, arguments: args } }] } }]);
    const events = [
      sofar('{"city"', "get_weather"),
      sofar('{"city": "Par'),
      sofar('{"city": "Paris"}'),
      chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
    ];
    const expected = { toolCalls: [{ id: "call_q1", name: "get_weather", arguments: { city: "Paris" } }] };
    expect(await call("cumulative arguments", { events }, true)).toMatchObject(expected);
    expect(await call("cumulative arguments folded", { events }, false)).toMatchObject(expected);
  });

  it("keeps arguments that continue with everything before them (a nested object under the same key), streamed or folded", async () => {
    // The resend reading above must not take a real continuation for a resend: `{"filter":` then
    // `{"filter":"x"}}` is one object nested in another, as the chat format appends it.
    const piece = (args: string, name?: string) =>
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_n1", function: { name, arguments: args } }] } }]);
    const events = [
      piece('{"filter":', "search"),
      piece('{"filter":"x"}}'),
      chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
    ];
    const expected = { toolCalls: [{ id: "call_n1", name: "search", arguments: { filter: { filter: "x" } } }] };
    expect(await call("nested arguments", { events }, true)).toMatchObject(expected);
    expect(await call("nested arguments folded", { events }, false)).toMatchObject(expected);
  });

  it("keeps one tool call when a closing chunk restates its complete arguments", async () => {
    // elizaOS/eliza PR #16973: argument deltas, then a consolidated chunk repeating the whole
    // arguments re-serialized; lidge-jun/opencodex#361 shows the same duplicate arguments chunk.
    const call1 = { index: 0, id: "call_e1", type: "function", function: { name: "shell", arguments: "" } };
    const reply = await call(
      "restated arguments",
      {
        events: [
          chunk([{ index: 0, delta: { tool_calls: [call1] } }]),
          chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"command": ' } }] } }]),
          chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] } }]),
          chunk([
            {
              index: 0,
              delta: { tool_calls: [{ ...call1, function: { name: "shell", arguments: '{"command":"ls"}' } }] },
              finish_reason: "tool_calls",
            },
          ]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({
      toolCalls: [{ id: "call_e1", name: "shell", arguments: { command: "ls" } }],
      invalidToolCalls: [],
    });
  });

  it("reads GLM's tool call with index -1 and arguments as an object", async () => {
    // zai-org/GLM-4.5#17: `"index": -1` and `arguments` a JSON object, with finish_reason tool_calls.
    const reply = await call(
      "glm index -1",
      {
        events: [
          chunk([
            {
              index: 0,
              finish_reason: "tool_calls",
              delta: {
                tool_calls: [
                  {
                    id: "call_WiwAl",
                    index: -1,
                    type: "function",
                    function: { name: "search", arguments: { name: "cb8fe9ed" } },
                  },
                ],
              },
            },
          ]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ toolCalls: [{ id: "call_WiwAl", name: "search", arguments: { name: "cb8fe9ed" } }] });
  });

  it("reads sglang's reasoning deltas with role, content and tool_calls all null", async () => {
    // sgl-project/sglang#6310: every unset delta field null, `matched_stop` beside finish_reason.
    const thinking = (piece: string) =>
      chunk([
        {
          index: 0,
          delta: { role: null, content: null, reasoning_content: piece, tool_calls: null },
          logprobs: null,
          finish_reason: null,
          matched_stop: null,
        },
      ]);
    const reply = await call(
      "sglang reasoning",
      { events: [thinking("Both"), thinking(" integers."), text("42", "stop")] },
      true,
    );
    expect(reply).toMatchObject({ content: "42", reasoning: "Both integers." });
  });

  it("reads Mistral's thinking parts of an array content as the reasoning, streamed and not", async () => {
    // BerriAI/litellm#16272 (these chunks, magistral-medium-2509), vercel/ai PR #17779 (the whole
    // reply's content as thinking and text parts): the reasoning was dropped with the parts.
    const thinking = (piece: string) => ({ type: "thinking", thinking: [{ type: "text", text: piece }] });
    const events = [
      chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
      chunk([{ index: 0, delta: { content: [thinking("'s a greeting")] }, finish_reason: null }]),
      chunk([{ index: 0, delta: { content: [thinking(", I should return a greeting.")] }, finish_reason: null }]),
      text("Hello!"),
      chunk([{ index: 0, delta: { content: "" }, finish_reason: "stop" }], { usage: USAGE }),
    ];
    const expected = { content: "Hello!", reasoning: "'s a greeting, I should return a greeting." };
    expect(await call("magistral thinking", { events }, true)).toMatchObject(expected);
    const whole = wholeReply(
      { content: [thinking("'s a greeting, I should return a greeting."), { type: "text", text: "Hello!" }] },
      "stop",
    );
    expect(await call("magistral thinking whole", whole, false)).toMatchObject(expected);
  });

  it("gives a refusal sent in `refusal` instead of content as the reply's text, streamed and not", async () => {
    // OpenAI API reference (`delta.refusal`, `message.refusal` with `content: null`);
    // langchain-ai/langchain#39747 and NousResearch/hermes-agent PR #91181: a dropped refusal left
    // an empty reply (retried as one).
    const words = "I'm sorry, I cannot assist with that request.";
    const refusing = (refusal: string, finish: string | null = null) =>
      chunk([{ index: 0, delta: { content: null, refusal }, logprobs: null, finish_reason: finish }]);
    const events = [
      chunk([{ index: 0, delta: { role: "assistant", content: null, refusal: "" }, finish_reason: null }]),
      refusing("I'm sorry, "),
      refusing("I cannot assist with that request."),
      chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
    ];
    expect(await call("refusal streamed", { events }, true)).toMatchObject({ content: words });
    const whole = await call("refusal whole", wholeReply({ content: null, refusal: words }, "stop"), false);
    expect(whole).toMatchObject({ content: words });
  });

  it("counts reasoning tokens a relay left out of completion_tokens as output, in the reply and the ledger", async () => {
    // router-for-me/CLIProxyAPI#5733, mozilla-ai/any-llm#1290: Gemini's thought tokens mapped to
    // `reasoning_tokens` and the total only, so prompt + completion fell short of the total and the
    // thinking (billed as output) was priced at nothing.
    const usage = {
      prompt_tokens: 21,
      completion_tokens: 5,
      total_tokens: 86,
      completion_tokens_details: { reasoning_tokens: 60 },
    };
    const fixture = { events: [text("Forty-two.", "stop"), chunk([], { usage })] };
    relay.set("gemini thoughts outside completion", fixture);
    const ledger = new CostLedger();
    const warnings: string[] = [];
    const request = {
      model: "beta-4o",
      stream: true as const,
      messages: [{ role: "user" as const, content: "gemini thoughts outside completion" }],
    };
    let reply: unknown;
    const options = {
      client: relay.client,
      ledger,
      onWarning: (warning: { code: string }) => warnings.push(warning.code),
    };
    for await (const event of await callChat(request, options)) if (event.type === "finish") reply = event.reply;
    expect(reply).toMatchObject({ usage: { prompt_tokens: 21, completion_tokens: 65, total_tokens: 86 } });
    expect(ledger.entries()[0]).toMatchObject({ promptTokens: 21, completionTokens: 65, reasoningTokens: 60 });
    expect(warnings).not.toContain("usage_mismatch");
    const whole = await call(
      "gemini thoughts whole",
      { json: { ...wholeReply({ content: "Forty-two." }, "stop").json, usage } },
      false,
    );
    expect(whole).toMatchObject({ usage: { completion_tokens: 65, total_tokens: 86 } });
  });

  it("gives a reply cut by the output budget with finish_reason length, streamed and not", async () => {
    // OpenAI API reference: finish_reason "length" when max_tokens was reached.
    const streamed = await call("length streamed", { events: [text("Once upon a", "length")] }, true);
    expect(streamed).toMatchObject({ content: "Once upon a", finishReason: "length" });
    const whole = await call("length whole", wholeReply({ content: "Once upon a" }, "length"), false);
    expect(whole).toMatchObject({ content: "Once upon a", finishReason: "length" });
  });

  it("reads an upstream's own finish reasons as the chat format's: end_turn as stop, max_tokens as length", async () => {
    // aws-samples/bedrock-access-gateway#11 (Claude's `end_turn` passed through in the chunks) and
    // YumchaLabs/siumai#14 (`end_turn` -> stop, `max_tokens` -> length): a reply cut off by its
    // budget must say "length", or nobody is told it was cut.
    const streamed = await call("end_turn streamed", { events: [text("Hello"), text("!", "end_turn")] }, true);
    expect(streamed).toMatchObject({ content: "Hello!", finishReason: "stop" });
    const whole = await call("max_tokens whole", wholeReply({ content: "Once upon a" }, "max_tokens"), false);
    expect(whole).toMatchObject({ content: "Once upon a", finishReason: "length" });
  });

  it("gives Azure's content_filter finish as the reply's finish reason, with the text before it", async () => {
    // BerriAI/litellm PR #4828: Azure ends a filtered completion with a chunk whose delta fields
    // are all null and finish_reason "content_filter".
    const reply = await call(
      "azure content filter finish",
      {
        events: [
          text("I can tell you that"),
          chunk([
            {
              index: 0,
              delta: { content: null, function_call: null, role: null, tool_calls: null },
              finish_reason: "content_filter",
              logprobs: null,
            },
          ]),
        ],
      },
      true,
    );
    expect(reply).toMatchObject({ content: "I can tell you that", finishReason: "content_filter" });
  });

  it("turns Gemini's MALFORMED_FUNCTION_CALL finish with no output into a retryable UpstreamError", async () => {
    // googleapis/python-genai#2081 (a stream of one chunk whose finish reason is
    // MALFORMED_FUNCTION_CALL), NousResearch/hermes-agent PR #83886: an empty, failed turn.
    const result = await call(
      "gemini malformed function call",
      { events: [chunk([{ index: 0, delta: { role: "assistant" }, finish_reason: "MALFORMED_FUNCTION_CALL" }])] },
      true,
    );
    expect(errorOf(result)).toBeInstanceOf(UpstreamError);
    expect(errorOf(result).retryable).toBe(true);
    expect(errorOf(result).message).toContain("MALFORMED_FUNCTION_CALL");
  });

  it("turns a non-streamed MALFORMED_FUNCTION_CALL reply with no message content into an UpstreamError", async () => {
    // pydantic/pydantic-ai#631: `{"finishReason": "MALFORMED_FUNCTION_CALL"}` with no content.
    const result = await call(
      "gemini malformed whole",
      {
        json: {
          ...HEAD,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant" }, finish_reason: "MALFORMED_FUNCTION_CALL" }],
        },
      },
      false,
    );
    expect(errorOf(result)).toBeInstanceOf(UpstreamError);
  });
});

describe("a stream request answered without a stream", () => {
  it("reads a whole chat.completion, tool call included, as the streamed reply", async () => {
    // qualcomm/GenieX#567: a server that ignores `stream: true` and answers with one JSON body.
    const reply = await call(
      "whole reply to a stream",
      wholeReply(
        {
          content: "Checking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          ],
        },
        "tool_calls",
      ),
      true,
    );
    expect(reply).toMatchObject({
      content: "Checking.",
      toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Oslo" } }],
      finishReason: "tool_calls",
      usage: USAGE,
    });
  });
});

describe("SSE framing", () => {
  const body = [
    `data: ${text("Hello")}`,
    `data: ${text(", world", "stop")}`,
    `data: ${chunk([], { usage: USAGE })}`,
    "data: [DONE]",
  ];

  it("reads CRLF-framed events", async () => {
    // hey-api/hey-api#3054 (sse-starlette frames with CRLF by default), Continuum-AI-Corp/OrcaRouter-Lite
    // PR #98 (Azure-hosted models end events with \r\n\r\n).
    const reply = await call("crlf", { raw: [`${body.join("\r\n\r\n")}\r\n\r\n`] }, true);
    expect(reply).toMatchObject({ content: "Hello, world", usage: USAGE });
  });

  it("skips comments and keep-alives between events, and reads `event:` lines before data", async () => {
    // openrouter.ai docs, api-reference/streaming (": OPENROUTER PROCESSING"); ggml-org/llama.cpp
    // PR #16109 and 8monkey-ai/hebo-gateway#71 (`event: ...` lines before `data:`).
    const raw = [
      ": OPENROUTER PROCESSING\n\n",
      `event: message\ndata: ${text("Hello")}\n\n`,
      ": keep-alive\n\n",
      `id: 2\nevent: message\ndata: ${text(", world", "stop")}\n\n`,
      "data: [DONE]\n\n",
    ];
    const reply = await call("comments and event lines", { raw }, true);
    expect(reply).toMatchObject({ content: "Hello, world" });
  });

  it("skips blank `data:` keep-alive events between chunks", async () => {
    // Growth-Circle/cadis#2329 and netease-lcap/wave-agent PR #1326: proxies send an empty `data: `
    // line as a heartbeat; parsing it as JSON aborted an otherwise good stream.
    const raw = [`data: ${text("Hello")}\n\n`, "data: \n\n", "data:\n\n", `data: ${text(", world", "stop")}\n\n`];
    const reply = await call("blank data keep-alive", { raw: [...raw, "data: [DONE]\n\n"] }, true);
    expect(reply).toMatchObject({ content: "Hello, world", finishReason: "stop" });
  });

  it('skips heartbeat events whose data is `{"type": "ping"}` or `{}`, streamed or folded', async () => {
    // anthropics/anthropic-sdk-typescript#734, openai-php/client PR #556, jamesrochabrun/SwiftOpenAI#144:
    // Anthropic's OpenAI-compatible layer sends `data: {"type": "ping"}` between chunks; an object with
    // neither choices nor usage failed an otherwise good stream.
    const raw = [
      `data: ${chunk([{ index: 0, delta: { role: "assistant" } }])}\n\n`,
      'data: {"type": "ping"}\n\n',
      `data: ${text("Hello")}\n\n`,
      "data: {}\n\n",
      `data: ${text(", world", "stop")}\n\n`,
      "data: [DONE]\n\n",
    ];
    expect(await call("ping events", { raw }, true)).toMatchObject({ content: "Hello, world", finishReason: "stop" });
    expect(await call("ping events folded", { raw }, false)).toMatchObject({ content: "Hello, world" });
  });

  it("skips a keep-alive comment a proxy passed on as data, streamed or folded", async () => {
    // mnfst/llm-gateway#2053: OpenRouter's comments re-emitted as `data: : OPENROUTER PROCESSING`;
    // read as a chunk, it failed the stream at its first keep-alive.
    const raw = [
      "data: : OPENROUTER PROCESSING\n\n",
      `data: ${text("Hello")}\n\n`,
      "data: : OPENROUTER PROCESSING\n\n",
      `data: ${text(", world", "stop")}\n\n`,
      "data: [DONE]\n\n",
    ];
    expect(await call("comment as data", { raw }, true)).toMatchObject({
      content: "Hello, world",
      finishReason: "stop",
    });
    expect(await call("comment as data folded", { raw }, false)).toMatchObject({ content: "Hello, world" });
  });

  it("reads a whole reply or error body that comes after OpenRouter's keep-alive comments, streamed or not", async () => {
    // router-for-me/CLIProxyAPI#417: OpenRouter's 200 to a non-stream request starts with
    // ": OPENROUTER PROCESSING" lines, then the JSON; read as an event stream, the reply was refused.
    const comments = ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n";
    const reply = JSON.stringify(wholeReply({ content: "Hi" }, "stop").json);
    for (const stream of [false, true]) {
      const raw = [comments, reply];
      const result = await call(`comments then reply ${stream}`, { raw, contentType: "application/json" }, stream);
      expect(result).toMatchObject({ content: "Hi", usage: USAGE });
      const error = JSON.stringify({ error: { code: 429, message: "Rate limit exceeded" } });
      const failed = await call(`comments then error ${stream}`, { status: 429, raw: [comments, error] }, stream);
      expect(errorOf(failed)).toBeInstanceOf(RateLimitError);
    }
  });

  it("reads events ended by one line break instead of two as separate chunks", async () => {
    // anomalyco/opencode#27365 (a Baseten GLM-4.7 endpoint): `data: {...}\ndata: {...}`; as the SSE
    // rules read it, one event whose data is both chunks joined, which is no JSON.
    const lines = [
      `data: ${text("Hello")}`,
      `data: ${text(", world", "stop")}`,
      `data: ${chunk([], { usage: USAGE })}`,
    ];
    const reply = await call("single line breaks", { raw: [`${lines.join("\n")}\ndata: [DONE]\n\n`] }, true);
    expect(reply).toMatchObject({ content: "Hello, world", finishReason: "stop", usage: USAGE });
  });

  it("reads one chunk whose JSON spans several data lines as one event", async () => {
    // The SSE rules: data lines join with a line break (SamSaffron/term-llm PR #454, pretty-printed chunks).
    const pretty = JSON.stringify(JSON.parse(text("Hello", "stop")), null, 2);
    const raw = [
      `${pretty
        .split("\n")
        .map((line) => `data: ${line}`)
        .join("\n")}\n\ndata: [DONE]\n\n`,
    ];
    expect(await call("multi-line data", { raw }, true)).toMatchObject({ content: "Hello", finishReason: "stop" });
  });

  it("ends at a bare `[DONE]` line without `data:`", async () => {
    // Portkey-AI/gateway#55: the gateway sent `[DONE]` without the `data:` prefix (new-api's
    // stream scanner also passes such a line on as the end).
    const raw = [`data: ${text("Hello", "stop")}\n\n`, `data: ${chunk([], { usage: USAGE })}\n\n`, "[DONE]\n\n"];
    const reply = await call("bare done", { raw }, true);
    expect(reply).toMatchObject({ content: "Hello", finishReason: "stop", usage: USAGE });
  });

  it("keeps the text that follows a finish reason sent too early, on reasoning chunks", async () => {
    // open-webui/open-webui#16377: `"finish_reason": "stop"` on every reasoning_content chunk, then
    // the content; the reply is all of it, not the reasoning alone.
    const thinking = (piece: string) =>
      chunk([{ index: 0, delta: { reasoning_content: piece }, finish_reason: "stop" }]);
    const reply = await call(
      "early finish on reasoning",
      { events: [thinking("Short"), thinking(" thought."), text("Blue"), text(" sky.", "stop")] },
      true,
    );
    expect(reply).toMatchObject({ content: "Blue sky.", reasoning: "Short thought.", finishReason: "stop" });
  });

  it("ends a finished stream whose server sends no [DONE] and keeps the connection open", async () => {
    // musistudio/claude-code-router PR #1271 (a finish_reason chunk, then the connection stays
    // open) and maximhq/bifrost#6784 (no [DONE], only keep-alive comments): the reply was complete,
    // but the chunk timeout turned it into an error.
    const raw = [
      `data: ${text("Hello")}\n\n`,
      `data: ${text(", world", "stop")}\n\n`,
      `data: ${chunk([], { usage: USAGE })}\n\n`,
    ];
    const reply = await call("finished but held open", { raw: [...raw, ": keep-alive\n\n"], hold: true }, true);
    expect(reply).toMatchObject({ content: "Hello, world", finishReason: "stop", usage: USAGE });
  });

  it("turns an `event: error` event into the typed error its body names", async () => {
    // ggml-org/llama.cpp PR #16109 (before the fix: `event: error` with the error as data), and
    // 8monkey-ai/hebo-gateway#71 (`event: error` then `data: {"error": ...}`).
    const raw = [
      'event: error\ndata: {"error":{"message":"Rate limit reached for requests","type":"rate_limit_error","code":"rate_limit_exceeded"}}\n\n',
      "data: [DONE]\n\n",
    ];
    const result = await call("event error", { raw }, true);
    expect(errorOf(result)).toBeInstanceOf(RateLimitError);
  });

  it("joins a UTF-8 character split across two reads", async () => {
    // kubernetes-sigs/inference-perf PR #781 (one-byte fragmentation, including UTF-8).
    const event = Buffer.from(`data: ${text("你好，世界", "stop")}\n\n`);
    const cut = event.indexOf(Buffer.from("好")) + 1;
    const reply = await call(
      "split utf-8",
      { raw: [event.subarray(0, cut), event.subarray(cut), "data: [DONE]\n\n"] },
      true,
    );
    expect(reply).toMatchObject({ content: "你好，世界" });
  });

  it("reads a last event with no blank line after it, and no [DONE]", async () => {
    // kubernetes-sigs/inference-perf PR #781 ("incomplete final events"): the body ends right
    // after the finish chunk's data line.
    const reply = await call(
      "no trailing blank line",
      { raw: [`data: ${text("Done", "stop")}\n\n`, `data: ${chunk([], { usage: USAGE })}`] },
      true,
    );
    expect(reply).toMatchObject({ content: "Done", usage: USAGE });
  });
});

describe("errors as proxies send them", () => {
  it("turns OpenRouter's mid-stream 429 with error.metadata into a RateLimitError", async () => {
    // openrouter.ai docs, api-reference/errors: `{"error": {"code", "message", "metadata"}}` as an
    // SSE data event once the 200 was sent; metadata carries the provider's raw error.
    const result = await call(
      "openrouter metadata 429",
      {
        events: [
          ": OPENROUTER PROCESSING",
          sse({
            error: {
              code: 429,
              message: "Provider returned error",
              metadata: { raw: "google/gemini-2.5-pro is temporarily rate-limited upstream", provider_name: "Google" },
            },
          }),
        ],
      },
      true,
    );
    expect(errorOf(result)).toBeInstanceOf(RateLimitError);
  });

  it("turns OpenRouter's 403 moderation flag into a BadRequestError that does not blame the key", async () => {
    // openrouter.ai docs, api-reference/errors, "Moderation errors": 403 with
    // metadata { reasons, flagged_input, provider_name, model_slug }.
    const result = await call(
      "openrouter moderation 403",
      {
        status: 403,
        json: {
          error: {
            code: 403,
            message: 'gpt-4o requires moderation on OpenAI. Your input was flagged for "violence".',
            metadata: {
              reasons: ["violence"],
              flagged_input: "how to...",
              provider_name: "OpenAI",
              model_slug: "openai/gpt-4o",
            },
          },
        },
      },
      false,
    );
    expect(errorOf(result)).toBeInstanceOf(BadRequestError);
    expect(errorOf(result).message).not.toMatch(/SVC_API_KEY/);
  });

  it("turns Azure's 400 content_filter with innererror into a BadRequestError that quotes it", async () => {
    // openai/openai-dotnet#55 (the body), BerriAI/litellm PR #16231 (the same through LiteLLM).
    const result = await call(
      "azure content filter 400",
      {
        status: 400,
        json: {
          error: {
            message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
            type: null,
            param: "prompt",
            code: "content_filter",
            status: 400,
            innererror: {
              code: "ResponsibleAIPolicyViolation",
              content_filter_result: { sexual: { filtered: true, severity: "high" } },
            },
          },
        },
      },
      false,
    );
    expect(errorOf(result)).toBeInstanceOf(BadRequestError);
    expect(errorOf(result).code).toBe("content_filtered");
    expect(errorOf(result).message).toContain("content management policy");
  });

  it.each([
    [
      "nginx",
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    ],
    [
      "Cloudflare",
      '<!DOCTYPE html>\n<html class="no-js" lang="en-US"><head><title>api.example.com | 502: Bad gateway</title></head><body><div id="cf-error-details"><h1>Bad gateway</h1><span>Error code 502</span></div></body></html>',
    ],
  ])("turns a 502 HTML page from %s into a retryable UpstreamError without the page's markup", async (name, page) => {
    // Significant-Gravitas/AutoGPT#944 (Cloudflare's 502 page), router-for-me/CLIProxyAPI#2907.
    for (const stream of [false, true]) {
      const result = await call(
        `${name} 502 ${stream}`,
        { status: 502, contentType: "text/html", raw: [page] },
        stream,
      );
      expect(errorOf(result)).toBeInstanceOf(UpstreamError);
      expect(errorOf(result).retryable).toBe(true);
      expect(errorOf(result).message).not.toContain("<");
    }
  });

  it.each([
    [
      "Cloudflare",
      '<!DOCTYPE html>\n<html class="no-js" lang="en-US"><head><title>Attention Required! | Cloudflare</title><script>\n  if (!navigator.cookieEnabled) { window.addEventListener("DOMContentLoaded", function () {}) }\n</script></head><body><div id="cf-wrapper"><h1 data-translate="block_headline">Sorry, you have been blocked</h1><h2>You are unable to access relay.example.com</h2></div></body></html>',
    ],
    [
      "nginx",
      "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    ],
  ])("turns a 403 HTML page from %s into blocked_by_proxy, not a rejected key", async (name, page) => {
    // lss233/kirara-ai#929 and JohnnyZ93/oai-compatible-copilot#287: Cloudflare's block page in
    // front of an OpenAI-compatible API. The gateway never saw the key, so "check the key" misleads;
    // retrying or another model meets the same wall.
    for (const stream of [false, true]) {
      const result = await call(
        `${name} 403 ${stream}`,
        { status: 403, contentType: "text/html", raw: [page] },
        stream,
      );
      expect(errorOf(result)).toBeInstanceOf(UpstreamError);
      expect(errorOf(result)).toMatchObject({ code: "blocked_by_proxy", retryable: false, status: 403 });
      expect(errorOf(result).message).toContain(
        name === "Cloudflare" ? "Sorry, you have been blocked" : "403 Forbidden",
      );
      expect(errorOf(result).message).not.toMatch(/navigator|SVC_API_KEY|</);
    }
  });

  it.each([
    [
      "400 with API_KEY_INVALID",
      400,
      "INVALID_ARGUMENT",
      "API key not valid. Please pass a valid API key.",
      AuthenticationError,
    ],
    [
      "429 RESOURCE_EXHAUSTED",
      429,
      "RESOURCE_EXHAUSTED",
      "Resource has been exhausted (e.g. check quota).",
      RateLimitError,
    ],
    ["503 UNAVAILABLE", 503, "UNAVAILABLE", "The model is overloaded. Please try again later.", UpstreamError],
  ])(
    "reads Gemini's error list (%s) for its message and class",
    async (name, status, googleStatus, message, errorClass) => {
      // Simpleyyt/ai-manus#101 (`Error code: 400 - [{'error': {'code': 400, 'message': ..., 'status':
      // 'INVALID_ARGUMENT'}}]`), google-gemini/gemini-cli#12823 (the `details` with a reason). Unread,
      // the message was the raw JSON, a bad key said "fix the request", and a rate limit was a spent quota.
      const details = name.includes("API_KEY_INVALID")
        ? [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" }]
        : undefined;
      const json = [{ error: { code: status, message, status: googleStatus, ...(details ? { details } : {}) } }];
      for (const stream of [false, true]) {
        const error = errorOf(await call(`gemini list ${name} ${stream}`, { status, json }, stream));
        expect(error).toBeInstanceOf(errorClass);
        expect(error.message).toContain(`HTTP ${status}: ${message}`);
      }
    },
  );

  it('reads FastAPI\'s `{"detail": ...}` error body for its message', async () => {
    // raullenchai/Rapid-MLX PR #491: an OpenAI-compatible server answered its HTTP errors, rate
    // limits with Retry-After included, in FastAPI's default shape; the message was the raw JSON.
    const result = await call(
      "fastapi detail",
      {
        status: 429,
        raw: ['{"detail":"Rate limit exceeded: 10 per 1 minute"}'],
        contentType: "application/json",
        headers: { "retry-after": "2" },
      },
      false,
    );
    expect(errorOf(result)).toBeInstanceOf(RateLimitError);
    expect(errorOf(result)).toMatchObject({
      retryAfterS: 2,
      message: expect.stringMatching(/^HTTP 429: Rate limit exceeded: 10 per 1 minute\. /),
    });
  });

  it("turns a 200 JSON error body to a stream request into the error its code names", async () => {
    // easychen/openai-api-proxy PR #33: errors to `stream: true` requests come back as JSON,
    // here with OpenAI's invalid_api_key.
    const result = await call(
      "json error to stream",
      {
        json: {
          error: {
            message: "Incorrect API key provided: sk-false.",
            type: "invalid_request_error",
            param: null,
            code: "invalid_api_key",
          },
        },
      },
      true,
    );
    expect(errorOf(result)).toBeInstanceOf(AuthenticationError);
  });

  it("turns a 200 reply whose choices are empty into an error, not an empty answer", async () => {
    // pydantic/pydantic-ai#7909 (this body, from an OpenAI-compatible gateway) and aliasrobotics/cai
    // PR #436 (Gemini's OpenAI-compatible endpoint empties `choices` on a filter or a rate limit).
    const result = await call(
      "empty choices",
      { json: { id: "123", choices: [], created: 1704067200, model: "gpt-4o-123", object: "chat.completion" } },
      false,
    );
    expect(errorOf(result)).toBeInstanceOf(UpstreamError);
    expect(errorOf(result).message).toContain("no choices");
  });

  it("turns vLLM's and sglang's flat error object into the typed error, as a 200 reply and in a stream", async () => {
    // vllm-project/vllm and sgl-project/sglang, `entrypoints/openai/protocol.py` ErrorResponse:
    // `{"object": "error", "message", "type", "param", "code"}`, not nested under `error`; read as
    // an answer before (an empty reply), or as a chunk we could not read.
    const body = {
      object: "error",
      message: "Rate limit exceeded for this deployment.",
      type: "RateLimitError",
      param: null,
      code: 429,
    };
    const whole = await call("flat error whole", { json: body }, false);
    expect(errorOf(whole)).toBeInstanceOf(RateLimitError);
    expect(errorOf(whole).message).toContain("Rate limit exceeded for this deployment.");
    const streamed = await call("flat error streamed", { events: [sse(body)] }, true);
    expect(errorOf(streamed)).toBeInstanceOf(RateLimitError);
  });

  it("turns a 200 HTML page to a stream request into a typed error, not a hang or an empty answer", async () => {
    // A captive portal or a wrong base URL answers 200 text/html (the same page shape as
    // Significant-Gravitas/AutoGPT#944).
    const result = await call(
      "html 200 stream",
      { contentType: "text/html", raw: ["<!DOCTYPE html><html><body>Sign in to continue</body></html>"] },
      true,
    );
    expect(errorOf(result)).toBeInstanceOf(StreamError);
    expect(errorOf(result).message).not.toContain("<");
  });
});

describe("a non-stream request answered with a stream", () => {
  // decolua/9router#3492 and kaito-project/kaito#1880: relays that stream every answer, whatever
  // `stream` said; the events make the whole reply.
  it("reads the text, reasoning and usage the events carry", async () => {
    const reply = await call(
      "streams anyway",
      {
        events: [
          chunk([{ index: 0, delta: { role: "assistant", reasoning_content: "Short." }, finish_reason: null }]),
          text("Blue light "),
          text("scatters.", "stop"),
          chunk([], { usage: USAGE }),
        ],
      },
      false,
    );
    expect(reply).toMatchObject({ content: "Blue light scatters.", finishReason: "stop", usage: USAGE });
    expect((reply as { reasoning?: string }).reasoning).toBe("Short.");
  });

  it("puts tool-call fragments together, with or without their index", async () => {
    const fragment = (call: Record<string, unknown>, finish: string | null = null) =>
      chunk([{ index: 0, delta: { tool_calls: [call] }, finish_reason: finish }]);
    const reply = await call(
      "streams tool calls anyway",
      {
        events: [
          fragment({ index: 0, id: "call_a", type: "function", function: { name: "calculator", arguments: '{"expr' } }),
          fragment({ index: 0, function: { arguments: 'ession":"1+1"}' } }),
          fragment({ id: "call_b", function: { name: "current_time", arguments: "{}" } }, "tool_calls"),
        ],
      },
      false,
    );
    expect(reply).toMatchObject({
      finishReason: "tool_calls",
      toolCalls: [
        { id: "call_a", name: "calculator", arguments: { expression: "1+1" } },
        { id: "call_b", name: "current_time", arguments: {} },
      ],
    });
  });

  it("gives the typed error an event carries, not a reply", async () => {
    const result = await call(
      "streams an error anyway",
      { events: [sse({ error: { code: "invalid_api_key", message: "Incorrect API key provided" } })] },
      false,
    );
    expect(errorOf(result)).toBeInstanceOf(AuthenticationError);
  });
});

describe("a body whose content type says something else", () => {
  const events = `data: ${text("Hello")}\n\ndata: ${text(", world", "stop")}\n\ndata: ${chunk([], { usage: USAGE })}\n\ndata: [DONE]\n\n`;
  const whole = JSON.stringify(wholeReply({ content: "Hello, world" }, "stop").json);
  const expected = { content: "Hello, world", finishReason: "stop", usage: USAGE };

  // vllm-project/vllm-ascend PR #6985 (a proxy serving the stream as application/json), 54xzh/FLIT#71
  // (text/plain), tinyhumansai/tinyagents PR #56 (no content type): the body is events all the same.
  it.each([["application/json"], ["text/plain; charset=utf-8"], [null]])(
    "reads an event stream served as %s, to a stream request",
    async (contentType) => {
      const reply = await call(`events as ${contentType} streamed`, { raw: [events], contentType }, true);
      expect(reply).toMatchObject(expected);
    },
  );

  // Wei-Shaw/sub2api#2826: a non-stream request answered with events under no or another content type.
  it.each([["application/json"], ["text/plain; charset=utf-8"], [null]])(
    "folds an event stream served as %s, to a non-stream request",
    async (contentType) => {
      const reply = await call(`events as ${contentType} whole`, { raw: [events], contentType }, false);
      expect(reply).toMatchObject(expected);
    },
  );

  // decolua/9router PR #3301: a whole chat.completion labelled text/event-stream.
  it.each([
    ["text/event-stream", true],
    ["text/event-stream", false],
    ["text/plain", true],
  ])("reads a whole reply served as %s (stream request: %s)", async (contentType, stream) => {
    const reply = await call(`whole as ${contentType} ${stream}`, { raw: [whole], contentType }, stream);
    expect(reply).toMatchObject(expected);
  });

  it("quotes a plain-text 200 body to a non-stream request in its invalid_response error", async () => {
    // HKUDS/nanobot PR #2289: a gateway answered 200 with the text `unsupported model: ...`; read as
    // events or as JSON, the error said only that the body was malformed.
    const result = await call(
      "plain text 200",
      { raw: ["unsupported model: MiniMax/MiniMax-M2.7"], contentType: "text/plain" },
      false,
    );
    expect(errorOf(result)).toMatchObject({
      code: "invalid_response",
      message: expect.stringContaining("unsupported model: MiniMax/MiniMax-M2.7"),
    });
  });

  it("reads a whole reply with `data: [DONE]` glued after it, streamed or not", async () => {
    // decolua/9router#1396 and #3492: `{...}data: [DONE]` under text/event-stream, which is no JSON.
    const raw = [`${whole}data: [DONE]`];
    expect(await call("whole then done streamed", { raw }, true)).toMatchObject(expected);
    expect(await call("whole then done", { raw }, false)).toMatchObject(expected);
  });

  it("reads a JSON reply, a JSON error body and an event stream that start with a byte order mark", async () => {
    // RFC 8259 section 8.1 (a reader may ignore a BOM); fastify/secure-json-parse PR #5 and
    // hapijs/bourne#28 (old proxies and Windows services put one before JSON).
    const bom = "\uFEFF";
    const json = { raw: [`${bom}${whole}`], contentType: "application/json" };
    expect(await call("bom whole", json, false)).toMatchObject(expected);
    expect(await call("bom whole streamed", json, true)).toMatchObject(expected);
    expect(await call("bom events", { raw: [`${bom}${events}`] }, true)).toMatchObject(expected);
    const quota = { error: { message: "You exceeded your current quota.", code: "insufficient_quota" } };
    const refused = await call(
      "bom error",
      { status: 429, raw: [`${bom}${JSON.stringify(quota)}`], contentType: "application/json" },
      false,
    );
    expect(errorOf(refused)).toMatchObject({
      code: "insufficient_quota",
      message: expect.stringContaining("HTTP 429 insufficient_quota"),
    });
  });
});

describe("a compressed body", () => {
  // Anionex/agent-vision-toolkit PR #36: OpenAI-compatible gateways (internal proxies) that gzip every
  // answer whatever Accept-Encoding says; undici's request hands the bytes on undecoded.
  const events = `data: ${text("Hello")}\n\ndata: ${text(", world", "stop")}\n\ndata: ${chunk([], { usage: USAGE })}\n\ndata: [DONE]\n\n`;
  const whole = JSON.stringify(wholeReply({ content: "Hello, world" }, "stop").json);
  const expected = { content: "Hello, world", finishReason: "stop", usage: USAGE };
  const coded = (coding: string, body: string) =>
    coding === "gzip" ? gzipSync(body) : coding === "deflate" ? deflateSync(body) : brotliCompressSync(body);

  it.each([["gzip"], ["deflate"], ["br"]])("reads a %s reply, streamed and not", async (coding) => {
    const headers = { "content-encoding": coding };
    const json = { raw: [coded(coding, whole)], contentType: "application/json", headers };
    expect(await call(`${coding} whole`, json, false)).toMatchObject(expected);
    const body = coded(coding, events);
    // Split, as a proxy flushes it: the decoder takes the pieces as they come.
    const streamed = { raw: [body.subarray(0, 1), body.subarray(1, 9), body.subarray(9)], headers };
    expect(await call(`${coding} events`, streamed, true)).toMatchObject(expected);
  });

  it("reads a gzip error body for its code", async () => {
    const quota = { error: { message: "You exceeded your current quota.", code: "insufficient_quota" } };
    const raw = [gzipSync(JSON.stringify(quota))];
    const result = await call(
      "gzip error",
      { status: 429, raw, contentType: "application/json", headers: { "content-encoding": "gzip" } },
      false,
    );
    expect(errorOf(result)).toMatchObject({ message: expect.stringContaining("HTTP 429 insufficient_quota") });
  });

  // freelensapp/freelens-ai-extension#272 and preset-io/agor PR #1104: a proxy built on fetch passes
  // `content-encoding` on over the body fetch decoded; langgenius/dify#9275 shows the "incorrect
  // header check" a client that trusts the header then reports.
  it.each([["gzip"], ["deflate"], ["br"]])(
    "reads a body labelled %s that a proxy already decoded as it is",
    async (coding) => {
      const headers = { "content-encoding": coding };
      expect(
        await call(`decoded whole ${coding}`, { raw: [whole], contentType: "application/json", headers }, false),
      ).toMatchObject(expected);
      expect(await call(`decoded events ${coding}`, { raw: [events], headers }, true)).toMatchObject(expected);
    },
  );

  it("turns a gzip body that does not decode into an invalid_response error, not a hang", async () => {
    const raw = [gzipSync(whole).subarray(0, 20), Buffer.from("not the rest of it")];
    const result = await call(
      "broken gzip",
      { raw, contentType: "application/json", headers: { "content-encoding": "gzip" } },
      false,
    );
    expect(errorOf(result)).toMatchObject({ code: "invalid_response" });
  });
});
