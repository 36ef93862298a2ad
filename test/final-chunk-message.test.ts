import { load } from "@langchain/core/load";
import { AIMessageChunk, type AIMessageChunkFields, type MessageContent, type UsageMetadata } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getModel } from "../src/catalog/models.js";
import { imagesIn, toFinalChunk } from "../src/chat/build-reply-message.js";
import type { CompletedReply } from "../src/chat/collect-reply.js";
import { finalChunkMessage } from "../src/chat/final-chunk-message.js";
import { textChunkMessage } from "../src/chat/text-chunk-message.js";
import { messageFacts, serializedForms, shapeOf } from "./message-shape.js";

interface FinalInput {
  content: MessageContent;
  additional_kwargs: Record<string, unknown>;
  response_metadata: Record<string, unknown>;
  usage_metadata?: UsageMetadata;
}

// How toFinalChunk built the chunk before finalChunkMessage, kept as the reference: every
// comparison is against what LangChain's constructor makes now, so a LangChain upgrade that adds,
// drops or reorders a field fails here rather than going unnoticed.
function chunkFields(fields: AIMessageChunkFields): AIMessageChunkFields {
  return {
    content: fields.content,
    additional_kwargs: fields.additional_kwargs ?? {},
    response_metadata: fields.response_metadata ?? {},
    tool_call_chunks: fields.tool_call_chunks ?? [],
    usage_metadata: fields.usage_metadata,
    id: fields.id,
    name: fields.name,
  };
}

function langchains(input: FinalInput): AIMessageChunk {
  return new AIMessageChunk(
    chunkFields({
      content: input.content,
      additional_kwargs: input.additional_kwargs,
      response_metadata: input.response_metadata,
      ...(input.usage_metadata === undefined ? {} : { usage_metadata: input.usage_metadata }),
    }),
  );
}

function ours(input: FinalInput): AIMessageChunk {
  return finalChunkMessage(input.content, input.additional_kwargs, input.response_metadata, input.usage_metadata);
}

const text = fc.oneof(
  fc.constant(""),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: fc.constantFrom("a", " ", "\u0000", "\uD800", "👋", "\n", '"') }),
);
const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text }),
  fc.record({ type: fc.constant("image"), mimeType: fc.constantFrom("image/png", "image/jpeg"), data: fc.base64String() }),
);
const count = fc.nat({ max: 100_000 });
const usage = fc.record(
  { input_tokens: count, output_tokens: count, total_tokens: count, output_token_details: fc.record({ reasoning: count }) },
  { requiredKeys: ["input_tokens", "output_tokens", "total_tokens"] },
);
// What replyMetadata and extrasOf make, and then any JSON besides.
const metadata = fc.tuple(
  fc.record(
    {
      model_name: text,
      model: text,
      requested_model: text,
      finish_reason: fc.constantFrom("stop", "length", "tool_calls", null),
      request_id: text,
      audit_id: text,
      backend_id: text,
      usage: fc.record({ prompt_tokens: count, completion_tokens: count, total_tokens: count }),
      usage_missing: fc.constant(true),
      fallback_from: fc.array(text, { maxLength: 3 }),
      images: fc.integer({ min: 1, max: 4 }),
    },
    { requiredKeys: ["model_name", "model", "requested_model", "finish_reason"] },
  ),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);
const extras = fc.oneof(
  fc.constant({}),
  fc.record({ tool_call_extras: fc.dictionary(fc.string(), fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }), { minKeys: 1, maxKeys: 2 }) }),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);
// A spec, and a function making fresh input objects from it for each message that keeps them.
const input = fc
  .record({
    content: fc.oneof(text, fc.array(block, { maxLength: 4 })),
    additional_kwargs: extras,
    response_metadata: metadata.map(([known, other]) => ({ ...other, ...known })),
    usage_metadata: fc.option(usage, { nil: undefined }),
  })
  .map((spec) => () => structuredClone(spec) as FinalInput);

describe("finalChunkMessage", () => {
  it("builds LangChain's own message: the same own properties in order, descriptors and identities", () => {
    fc.assert(
      fc.property(input, (make) => {
        expect(shapeOf(ours(make()))).toStrictEqual(shapeOf(langchains(make())));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the objects it is given and shares its own with lc_kwargs as LangChain does", () => {
    fc.assert(
      fc.property(input, (make) => {
        for (const build of [ours, langchains]) {
          const given = make();
          const message = build(given);
          const kwargs = message.lc_kwargs as AIMessageChunkFields;
          expect(Object.keys(kwargs)).toStrictEqual(Object.keys(langchains(make()).lc_kwargs));
          expect(message.content).toBe(given.content);
          expect(message.additional_kwargs).toBe(given.additional_kwargs);
          expect(message.response_metadata).toBe(given.response_metadata);
          expect(message.usage_metadata).toBe(given.usage_metadata);
          for (const key of ["content", "tool_calls", "invalid_tool_calls", "tool_call_chunks", "additional_kwargs", "response_metadata", "usage_metadata"] as const) {
            expect(kwargs[key]).toBe(message[key]);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("answers every type guard and getter as LangChain's own message does", () => {
    fc.assert(
      fc.property(input, (make) => {
        expect(messageFacts(ours(make()))).toStrictEqual(messageFacts(langchains(make())));
      }),
      { numRuns: 100 },
    );
  });

  it("serializes and round-trips through stored messages as LangChain's own message does", () => {
    fc.assert(
      fc.property(input, (make) => {
        expect(serializedForms(ours(make()))).toStrictEqual(serializedForms(langchains(make())));
      }),
      { numRuns: 200 },
    );
  });

  it("loads back from its JSON as LangChain's own message does", async () => {
    const given = (): FinalInput => ({
      content: [{ type: "text", text: "hé 👋" }],
      additional_kwargs: { tool_call_extras: { call_1: { thought_signature: "c2ln" } } },
      response_metadata: { model_name: "m", finish_reason: "stop" },
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    });
    const loaded = await load<AIMessageChunk>(JSON.stringify(ours(given())));
    expect(shapeOf(loaded)).toStrictEqual(shapeOf(await load<AIMessageChunk>(JSON.stringify(langchains(given())))));
    expect(loaded.usage_metadata).toStrictEqual(given().usage_metadata);
  });

  it("concatenates with text chunks in any order as LangChain's own messages do", () => {
    fc.assert(
      fc.property(input, fc.array(text, { maxLength: 6 }), fc.nat(), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), (make, texts, at, mixed) => {
        const position = at % (texts.length + 1);
        const sequence = <T>(textChunk: (value: string, index: number) => T, final: T): T[] => {
          const chunks = texts.map(textChunk);
          chunks.splice(position, 0, final);
          return chunks;
        };
        // LangChain refuses some merges (a "__proto__" key in metadata): then both must refuse alike.
        const merged = (chunks: () => AIMessageChunk[]) => {
          try {
            const message = chunks().reduce((left, right) => concat(left, right));
            return { shape: shapeOf(message), serialized: serializedForms(message) };
          } catch (error) {
            return { error: String(error) };
          }
        };
        const theirs = merged(() => sequence((value) => new AIMessageChunk(value), langchains(make())));
        expect(merged(() => sequence((value) => textChunkMessage(value), ours(make())))).toStrictEqual(theirs);
        expect(merged(() => sequence((value, index) => (mixed[index] ? new AIMessageChunk(value) : textChunkMessage(value)), ours(make())))).toStrictEqual(theirs);
      }),
      { numRuns: 200 },
    );
  });

  it("gives every message its own arrays and lc_kwargs, sharing only what it was given", () => {
    fc.assert(
      fc.property(input, input, (first, second) => {
        expect(shapeOf([ours(first()), ours(second())])).toStrictEqual(shapeOf([langchains(first()), langchains(second())]));
        const given = first();
        const theirsGiven = first();
        expect(shapeOf([ours(given), ours(given)])).toStrictEqual(shapeOf([langchains(theirsGiven), langchains(theirsGiven)]));
      }),
      { numRuns: 100 },
    );
  });

  it("leaves other messages alone when a consumer mutates one", () => {
    const given = (): FinalInput => ({ content: "", additional_kwargs: {}, response_metadata: { finish_reason: "stop" } });
    const mutated = ours(given());
    const other = ours(given());
    mutated.tool_calls!.push({ name: "get_weather", args: {}, id: "call_1", type: "tool_call" });
    mutated.invalid_tool_calls!.push({ name: "x", args: "{", id: "call_2", error: "Malformed args.", type: "invalid_tool_call" });
    mutated.tool_call_chunks!.push({ index: 0, args: "{", type: "tool_call_chunk" });
    mutated.lc_namespace.push("extra");
    mutated.lc_kwargs.extra = 3;
    expect(shapeOf(other)).toStrictEqual(shapeOf(langchains(given())));
  });
});

describe("toFinalChunk", () => {
  const reply = fc.record({
    content: fc.oneof(text, fc.constantFrom("Here: ![cat](data:image/png;base64,iVBORw0KGgo=) done", "![a](data:image/jpeg;base64,/9j/4AAQ)")),
    toolCalls: fc
      .oneof(fc.constant({}), fc.constant({ call_1: { thought_signature: "c2ln" } }))
      .map((extras): CompletedReply["toolCalls"] => ({ toolCalls: [], invalidToolCalls: [], extras })),
    finishReason: fc.constantFrom("stop", "length", null),
    usage: fc.option(
      fc.record(
        { prompt_tokens: count, completion_tokens: count, total_tokens: count, completion_tokens_details: fc.record({ reasoning_tokens: count }) },
        { requiredKeys: ["prompt_tokens", "completion_tokens", "total_tokens"] },
      ),
      { nil: undefined },
    ),
    servedModel: text,
    ids: fc.record({ requestId: text, auditId: text, backendId: text }, { requiredKeys: [] }),
  });

  it.each(["alpha-sonnet-4-6", "gamma-2.5-flash-image"])("builds LangChain's own message from a %s reply", (modelId) => {
    const origin = { requestedModel: modelId, model: getModel(modelId), fallbackFrom: [] };
    fc.assert(
      fc.property(reply, (completed: CompletedReply) => {
        const message = toFinalChunk(completed, origin);
        const usageMetadata = message.usage_metadata;
        expect(usageMetadata === undefined).toBe(completed.usage === undefined);
        const reference = langchains({
          content: message.content,
          additional_kwargs: message.additional_kwargs,
          response_metadata: message.response_metadata,
          ...(usageMetadata === undefined ? {} : { usage_metadata: usageMetadata }),
        });
        expect(shapeOf(message)).toStrictEqual(shapeOf(reference));
        expect(typeof message.content === "string").toBe(imagesIn(completed, origin.model) === 0);
      }),
      { numRuns: 100 },
    );
  });
});
