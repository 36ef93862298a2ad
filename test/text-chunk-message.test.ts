import { load } from "@langchain/core/load";
import { AIMessageChunk } from "@langchain/core/messages";
import { concat } from "@langchain/core/utils/stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toEventChunk } from "../src/chat/build-reply-message.js";
import { textChunkMessage } from "../src/chat/text-chunk-message.js";
import { messageFacts, serializedForms, shapeOf } from "./message-shape.js";

// Every comparison is against a message LangChain builds now, so a LangChain upgrade that adds,
// drops or reorders a field of its constructor fails here rather than going unnoticed.
const langchains = (text: string) => new AIMessageChunk(text);

const text = fc.oneof(
  fc.constant(""),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: fc.constantFrom("a", " ", "\u0000", "\uD800", "\uDC00", "👋", "\n", '"') }),
);

describe("textChunkMessage", () => {
  it("builds LangChain's own message: the same own properties in order, descriptors and identities", () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(shapeOf(textChunkMessage(value))).toStrictEqual(shapeOf(langchains(value)));
      }),
      { numRuns: 300 },
    );
  });

  it("shares lc_kwargs' values with the message as LangChain does", () => {
    const message = textChunkMessage("hello");
    const kwargs = message.lc_kwargs;
    expect(Object.keys(kwargs)).toStrictEqual(Object.keys(langchains("hello").lc_kwargs));
    for (const key of ["tool_calls", "invalid_tool_calls", "tool_call_chunks", "additional_kwargs", "response_metadata"] as const) {
      expect(kwargs[key]).toBe(message[key]);
    }
  });

  it("answers every type guard and getter as LangChain's own message does", () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(messageFacts(textChunkMessage(value))).toStrictEqual(messageFacts(langchains(value)));
      }),
      { numRuns: 200 },
    );
  });

  it("serializes and round-trips through stored messages as LangChain's own message does", () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(serializedForms(textChunkMessage(value))).toStrictEqual(serializedForms(langchains(value)));
      }),
      { numRuns: 200 },
    );
  });

  it("loads back from its JSON as LangChain's own message does", async () => {
    const ours = await load<AIMessageChunk>(JSON.stringify(textChunkMessage("hé 👋")));
    const theirs = await load<AIMessageChunk>(JSON.stringify(langchains("hé 👋")));
    expect(shapeOf(ours)).toStrictEqual(shapeOf(theirs));
    expect(ours.content).toBe("hé 👋");
  });

  it("concatenates like LangChain's own messages, alone or mixed with them", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (texts, mixed) => {
        const theirs = texts.map(langchains).reduce((left, right) => concat(left, right));
        const ours = texts.map(textChunkMessage).reduce((left, right) => concat(left, right));
        const mixes = texts.map((value, index) => (mixed[index] ? textChunkMessage(value) : langchains(value))).reduce((left, right) => concat(left, right));
        expect(shapeOf(ours)).toStrictEqual(shapeOf(theirs));
        expect(shapeOf(mixes)).toStrictEqual(shapeOf(theirs));
        expect(serializedForms(ours)).toStrictEqual(serializedForms(theirs));
      }),
      { numRuns: 200 },
    );
  });

  it("gives every message its own arrays and objects, shared with no other message", () => {
    fc.assert(
      fc.property(text, text, (first, second) => {
        expect(shapeOf([textChunkMessage(first), textChunkMessage(second)])).toStrictEqual(shapeOf([langchains(first), langchains(second)]));
      }),
      { numRuns: 100 },
    );
  });

  it("leaves other messages alone when a consumer mutates one", () => {
    const mutated = textChunkMessage("a");
    const other = textChunkMessage("b");
    mutated.tool_calls!.push({ name: "get_weather", args: {}, id: "call_1", type: "tool_call" });
    mutated.invalid_tool_calls!.push({ name: "x", args: "{", id: "call_2", error: "Malformed args.", type: "invalid_tool_call" });
    mutated.tool_call_chunks!.push({ index: 0, args: "{", type: "tool_call_chunk" });
    mutated.lc_namespace.push("extra");
    mutated.lc_namespace[0] = "changed";
    mutated.additional_kwargs.extra = 1;
    mutated.response_metadata.extra = 2;
    mutated.lc_kwargs.extra = 3;
    expect(shapeOf(other)).toStrictEqual(shapeOf(langchains("b")));
    expect(shapeOf(textChunkMessage("b"))).toStrictEqual(shapeOf(langchains("b")));
  });

  it("is what toEventChunk yields for a text event", () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(shapeOf(toEventChunk({ type: "text", text: value }))).toStrictEqual(shapeOf(langchains(value)));
      }),
      { numRuns: 100 },
    );
  });
});
