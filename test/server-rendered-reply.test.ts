import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RenderedReply, type CompletionMeta } from "../src/server/rendered-reply.js";
import type { SimulatedReply } from "../src/server/simulate/index.js";
import { splitArguments, splitContent } from "../src/server/split-content.js";

const text = fc.string({ unit: "grapheme", maxLength: 200 });
const reply: fc.Arbitrary<SimulatedReply> = fc.record({
  content: text,
  toolCalls: fc.array(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 12 }),
      name: fc.string({ minLength: 1, maxLength: 20 }),
      arguments: fc.json().map((json) => JSON.stringify(JSON.parse(json))),
      extra: fc.option(fc.dictionary(fc.constantFrom("thought_signature", "x"), fc.string()), { nil: undefined }),
    }),
    { maxLength: 3 },
  ),
  finishReason: fc.constantFrom("stop", "length", "tool_calls"),
  completionTokens: fc.nat(5000),
  reasoningTokens: fc.nat(500),
  images: fc.constant(0),
});
const meta: fc.Arbitrary<CompletionMeta> = fc.record({
  id: fc.string({ maxLength: 40 }).map((id) => `chatcmpl-${id}`),
  created: fc.nat(),
  model: fc.string({ maxLength: 30 }),
});

// What the wire format's chunks are, as JSON.stringify of the objects (the rendering avoids it).
function expectedChunks(
  rendered: SimulatedReply,
  promptTokens: number,
  at: CompletionMeta,
  includeUsage: boolean,
): string[] {
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({
      id: at.id,
      object: "chat.completion.chunk",
      created: at.created,
      model: at.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const chunks = [chunk({ role: "assistant", content: "" })];
  for (const piece of splitContent(rendered.content)) chunks.push(chunk({ content: piece }));
  rendered.toolCalls.forEach((call, index) => {
    const head = { index, ...call.extra, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    chunks.push(chunk({ tool_calls: [head] }));
    for (const fragment of splitArguments(call.arguments))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
  });
  chunks.push(chunk({}, rendered.finishReason));
  if (includeUsage) {
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: rendered.completionTokens,
      total_tokens: promptTokens + rendered.completionTokens,
      completion_tokens_details: { reasoning_tokens: rendered.reasoningTokens },
    };
    chunks.push(
      JSON.stringify({
        id: at.id,
        object: "chat.completion.chunk",
        created: at.created,
        model: at.model,
        choices: [],
        usage,
      }),
    );
  }
  return chunks;
}

describe("RenderedReply", () => {
  it("renders each stream chunk as JSON.stringify of its object would", () => {
    fc.assert(
      fc.property(reply, fc.nat(100_000), meta, fc.boolean(), (simulated, promptTokens, at, includeUsage) => {
        const { chunks, finishIndex } = new RenderedReply(simulated, promptTokens).chunks(at, includeUsage);
        expect(chunks).toEqual(expectedChunks(simulated, promptTokens, at, includeUsage));
        expect(JSON.parse(chunks[finishIndex]!).choices[0].finish_reason).toBe(simulated.finishReason);
      }),
    );
  });

  it("renders a streamed body as the data events of its chunks, then [DONE], for every response that reuses it", () => {
    fc.assert(
      fc.property(
        reply,
        fc.array(fc.tuple(meta, fc.boolean()), { minLength: 1, maxLength: 4 }),
        (simulated, responses) => {
          const rendered = new RenderedReply(simulated, 42);
          for (const [at, includeUsage] of responses) {
            const events = expectedChunks(simulated, 42, at, includeUsage).map((chunk) => `data: ${chunk}\n\n`);
            expect(rendered.sse(at, includeUsage)).toBe(`${events.join("")}data: [DONE]\n\n`);
          }
        },
      ),
    );
  });

  it("renders a reply's first streamed body, built without a template, as every later one", () => {
    const parts = fc.constantFrom(
      "Hello",
      " world",
      ".",
      " ",
      "\n",
      '"',
      "\\",
      "\t",
      "é",
      "😀",
      "\u0001",
      "x".repeat(40),
    );
    fc.assert(
      fc.property(fc.array(parts, { maxLength: 30 }), meta, fc.boolean(), (pieces, at, includeUsage) => {
        const simulated: SimulatedReply = {
          content: pieces.join(""),
          toolCalls: [],
          finishReason: "stop",
          completionTokens: 9,
          reasoningTokens: 0,
          images: 0,
        };
        const events = expectedChunks(simulated, 7, at, includeUsage).map((chunk) => `data: ${chunk}\n\n`);
        const rendered = new RenderedReply(simulated, 7);
        expect(rendered.sse(at, includeUsage)).toBe(`${events.join("")}data: [DONE]\n\n`);
        expect(rendered.sse(at, includeUsage)).toBe(`${events.join("")}data: [DONE]\n\n`);
      }),
    );
  });
});
