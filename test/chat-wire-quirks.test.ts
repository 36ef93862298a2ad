// Streams the local gateway never sends but real gateways do: tool-call deltas without `index`,
// reused indices, an empty `role`, arguments split inside a surrogate pair, usage repeated on
// every chunk, no usage at all, usage that does not add up. A tiny real HTTP server plays them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AIMessageChunk } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { TOOL_CALL_EXTRAS_KEY } from "../src/langchain/convert-messages.js";
import type { ChatWarning } from "../src/chat/parameter-warning.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { StreamError } from "../src/errors.js";

type Delta = Record<string, unknown>;
const usage = (prompt: number, completion: number, total = prompt + completion) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: total,
});
const chunk = (delta: Delta, extra: Record<string, unknown> = {}, finish: string | null = null) => ({
  id: "chatcmpl-quirk",
  object: "chat.completion.chunk",
  created: 1,
  model: "beta-4o-2024-11-20",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

const SCENARIOS: Record<string, object[]> = {
  "odd tool calls": [
    chunk({
      role: "",
      content: null,
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "lookup", arguments: "" }, thought_signature: "sig-A" },
      ],
    }),
    chunk({ tool_calls: [{ function: { arguments: '{"q":"caf' } }] }),
    chunk({ tool_calls: [{ function: { arguments: "é \ud83d" } }] }),
    chunk({ tool_calls: [{ function: { arguments: '\ude00"}' } }] }),
    chunk({
      tool_calls: [{ index: 0, id: "call_b", type: "function", function: { name: "lookup", arguments: '{"q":' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"tea"}' } }] }),
    chunk({}, {}, "tool_calls"),
    chunk({}, { choices: [], usage: usage(20, 12) }),
  ],
  "usage on every chunk": [
    chunk({ role: "assistant", content: "Hel" }, { usage: usage(10, 5) }),
    chunk({ content: "lo" }, { usage: usage(10, 5) }),
    chunk({}, { usage: usage(10, 5) }, "stop"),
  ],
  "no usage": [chunk({ role: "assistant", content: "Hi" }), chunk({}, {}, "stop")],
  "usage that does not add up": [
    chunk({ role: "assistant", content: "Hi" }),
    chunk({}, { usage: usage(10, 5, 99) }, "stop"),
  ],
  "cut tool arguments": [
    chunk({
      role: "assistant",
      tool_calls: [{ index: 0, id: "call_c", type: "function", function: { name: "lookup", arguments: '{"q":"ca' } }],
    }),
    chunk({}, { usage: usage(10, 64) }, "length"),
  ],
};

let server: Server;
let baseURL: string;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let text = "";
    for await (const piece of request) text += String(piece);
    const body = JSON.parse(text) as { messages: Array<{ content: string }> };
    const events = SCENARIOS[body.messages.at(-1)!.content] ?? [];
    response.writeHead(200, { "content-type": "text/event-stream", "x-request-id": "req-quirk" });
    for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    response.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function streamed(prompt: string, warnings: ChatWarning[] = [], ledger?: CostLedger): Promise<AIMessageChunk> {
  const model = new ChatGateway({
    model: "beta-4o",
    apiKey: "sk-quirk",
    baseURL,
    onWarning: (warning) => warnings.push(warning),
    ...(ledger ? { ledger } : {}),
  });
  let message: AIMessageChunk | undefined;
  try {
    for await (const piece of await model.stream(prompt)) message = message ? message.concat(piece) : piece;
  } finally {
    await model.close();
  }
  return message!;
}

describe("wire quirks", () => {
  it("assembles tool calls without index, with a reused index, an empty role and a split surrogate pair", async () => {
    const message = await streamed("odd tool calls");
    expect(message.tool_calls?.map(({ id, name, args }) => ({ id, name, args }))).toEqual([
      { id: "call_a", name: "lookup", args: { q: "café 😀" } },
      { id: "call_b", name: "lookup", args: { q: "tea" } },
    ]);
    expect(message.additional_kwargs[TOOL_CALL_EXTRAS_KEY]).toEqual({ call_a: { thought_signature: "sig-A" } });
  });

  it("takes usage once when the gateway repeats it on every chunk", async () => {
    const message = await streamed("usage on every chunk");
    expect(message.text).toBe("Hello");
    expect(message.usage_metadata).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
  });

  it("flags a stream that ended without usage, and still settles the ledger", async () => {
    const warnings: ChatWarning[] = [];
    const ledger = new CostLedger();
    const message = await streamed("no usage", warnings, ledger);
    expect(message.usage_metadata).toBeUndefined();
    expect(message.response_metadata.usage_missing).toBe(true);
    expect(warnings.map((warning) => warning.code)).toEqual(["usage_missing"]);
    expect(ledger.entries()[0]).toMatchObject({ status: "ok", usageMissing: true });
  });

  it("warns when usage does not add up", async () => {
    const warnings: ChatWarning[] = [];
    await streamed("usage that does not add up", warnings);
    expect(warnings.map((warning) => warning.code)).toEqual(["usage_mismatch"]);
  });

  it("refuses cut-off tool arguments instead of passing a guess on", async () => {
    const failure = await streamed("cut tool arguments").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StreamError);
    expect((failure as Error).message).toMatch(/lookup.*Raise maxTokens/);
  });
});
