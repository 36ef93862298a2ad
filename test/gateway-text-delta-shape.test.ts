import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TextDeltaShape } from "../src/gateway/text-delta-shape.js";
import type { ChatChunk } from "../src/gateway/wire.js";

// A chunk as a gateway sends it: the same JSON for every chunk of a reply but for its text.
function chunk(content: string, changes: Record<string, unknown> = {}, delta: Record<string, unknown> = {}): ChatChunk {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1795351274,
    model: "beta-4o-mini-2024-07-18",
    choices: [{ index: 0, delta: { content, ...delta }, logprobs: null, finish_reason: null }],
    usage: null,
    ...changes,
  } as ChatChunk;
}

function learned(data: string): TextDeltaShape {
  const shape = new TextDeltaShape();
  shape.learn(data, JSON.parse(data) as ChatChunk);
  return shape;
}

const TEMPLATE = JSON.stringify(chunk("Here is my"));

// A chunk that adds one fragment to a tool call's arguments, as gateways stream them.
function argumentsChunk(text: string, index = 0, call: Record<string, unknown> = {}): ChatChunk {
  return chunk("", {
    choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: text }, ...call }] }, logprobs: null, finish_reason: null }],
  });
}

describe("TextDeltaShape", () => {
  it("reads the text of a chunk shaped like the one learned exactly as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), (text, other) => {
        const shape = learned(JSON.stringify(chunk(other)));
        const data = JSON.stringify(chunk(text));
        expect(shape.match(data)).toBe(JSON.parse(data).choices[0].delta.content);
      }),
      { numRuns: 400 },
    );
  });

  it("reads escapes a gateway may write differently from JSON.stringify", () => {
    const shape = learned(TEMPLATE);
    const data = TEMPLATE.replace('"Here is my"', String.raw`"caf\u00e9 \"quoted\"\n\/ok"`);
    expect(shape.match(data)).toBe('café "quoted"\n/ok');
  });

  it("does not match a chunk that differs anywhere but in its text", () => {
    const shape = learned(TEMPLATE);
    const others = [
      chunk("a", { id: "chatcmpl-2" }),
      chunk("a", { model: "beta-4o" }),
      chunk("a", { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      chunk("a", {}, { role: "assistant" }),
      { ...chunk("a"), choices: [{ index: 0, delta: { content: "a" }, logprobs: null, finish_reason: "stop" }] },
      { ...chunk("a"), choices: [{ index: 1, delta: { content: "a" }, logprobs: null, finish_reason: null }] },
    ];
    for (const other of others) expect(shape.match(JSON.stringify(other))).toBeUndefined();
    // Same ends, but the middle is not one JSON string: a structure a parser would read otherwise.
    expect(shape.match(TEMPLATE.replace('"Here is my"', '"a","content":"b"'))).toBeUndefined();
    expect(shape.match(TEMPLATE.replace('"Here is my"', '"a\\"'))).toBeUndefined();
    expect(shape.match(TEMPLATE.replace('"Here is my"', '"tab\there"'))).toBeUndefined();
    expect(shape.match(TEMPLATE.slice(0, 40))).toBeUndefined();
  });

  it("learns only chunks that carry nothing but text for choice 0", () => {
    const refused = [
      chunk("Hi", {}, { role: "assistant" }),
      chunk("Hi", { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      { ...chunk("Hi"), choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }, { index: 1, delta: { content: "Hi" }, finish_reason: null }] },
      { ...chunk("Hi"), choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "length" }] },
    ];
    for (const data of refused.map((value) => JSON.stringify(value))) {
      expect(learned(data).match(JSON.stringify(chunk("next")))).toBeUndefined();
    }
  });

  it("learns nothing when the text is not where a probe puts it", () => {
    // The same text under another "content" key: the field found first is not the delta's.
    const twice = JSON.stringify({ ...chunk("Hi"), note: { content: "Hi" } });
    expect(learned(twice).match(JSON.stringify({ ...chunk("next"), note: { content: "Hi" } }))).toBeUndefined();
    // A duplicate key: JSON.parse keeps the last, so the first is not the text.
    const duplicate = TEMPLATE.replace('"content":"Here is my"', '"content":"x","content":"Here is my"');
    const shape = learned(duplicate);
    expect(shape.match(duplicate.replace('"content":"Here is my"', '"content":"next"'))).toBe("next");
    // The delta's text, or its key, written with an escape stringify does not use, the same field
    // plainly under another object: the plain one is found once, but it is not the delta's.
    for (const written of ['"content":"\\u0048i"', '"con\\u0074ent":"Hi"']) {
      const escaped = JSON.stringify({ ...chunk("Hi"), note: { content: "Hi" } }).replace('"content":"Hi"', written);
      expect(JSON.parse(escaped).choices[0].delta.content).toBe("Hi");
      expect(learned(escaped).match(escaped.replace('"content":"Hi"', '"content":"next"'))).toBeUndefined();
    }
    // The key's quoted name as the tail of another key, with the text: found once, and not the
    // delta's, which is written with a space.
    const tail = JSON.stringify({ ...chunk("Hi"), note: { 'ends with "content': "Hi" } }).replace('"content":"Hi"', '"content": "Hi"');
    expect(JSON.parse(tail).choices[0].delta.content).toBe("Hi");
    expect(learned(tail).match(tail.replace('\\"content":"Hi"', '\\"content":"next"'))).toBeUndefined();
    // Written with spaces, the field is not found: every chunk is parsed, nothing is misread.
    const spaced = JSON.stringify(chunk("Hi"), null, 1);
    expect(learned(spaced).match(JSON.stringify(chunk("next"), null, 1))).toBeUndefined();
  });

  it("forgets the shape at a chunk that is not text, and stops learning when shapes never repeat", () => {
    const shape = learned(TEMPLATE);
    shape.learn(JSON.stringify(chunk("", {}, { role: "assistant" })), chunk("", {}, { role: "assistant" }));
    expect(shape.match(JSON.stringify(chunk("next")))).toBeUndefined();
    // Every chunk with its own id: after a few shapes learned in vain, learning stops.
    const changing = new TextDeltaShape();
    for (let index = 0; index < 8; index++) changing.learn(JSON.stringify(chunk("t", { id: `c${index}` })), chunk("t", { id: `c${index}` }));
    expect(changing.match(JSON.stringify(chunk("next", { id: "c7" })))).toBeUndefined();
    // A match resets the count.
    const steady = new TextDeltaShape();
    for (let index = 0; index < 8; index++) {
      const data = JSON.stringify(chunk("t", { id: `c${index}` }));
      steady.learn(data, JSON.parse(data) as ChatChunk);
      expect(steady.match(JSON.stringify(chunk(`next ${index}`, { id: `c${index}` })))).toBe(`next ${index}`);
    }
  });

  it("reads a tool call's argument fragments exactly as JSON.parse does, with the call's index", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.nat(5), (text, other, index) => {
        const shape = learned(JSON.stringify(argumentsChunk(other, index)));
        const data = JSON.stringify(argumentsChunk(text, index));
        expect(shape.match(data)).toBe(JSON.parse(data).choices[0].delta.tool_calls[0].function.arguments);
        expect(shape.toolIndex).toBe(index);
      }),
      { numRuns: 300 },
    );
  });

  it("learns only fragments that carry nothing but one call's arguments, and tells text from arguments", () => {
    const refused = [
      argumentsChunk("", 0, { id: "call_1", type: "function" }),
      argumentsChunk('{"ci', 0, { function: { name: "get_weather", arguments: '{"ci' } }),
      chunk("", { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "a" } }, { index: 1, function: { arguments: "b" } }] }, finish_reason: null }] }),
      chunk("", { choices: [{ index: 0, delta: { content: "hi", tool_calls: [{ index: 0, function: { arguments: "a" } }] }, finish_reason: null }] }),
    ];
    for (const value of refused) {
      const shape = learned(JSON.stringify(value));
      expect(shape.match(JSON.stringify(argumentsChunk("next")))).toBeUndefined();
    }
    // A null content beside the call is part of the shape.
    const withNull = chunk("", { choices: [{ index: 0, delta: { content: null, tool_calls: [{ index: 2, function: { arguments: "a" } }] }, finish_reason: null }] });
    const shape = learned(JSON.stringify(withNull));
    expect(shape.match(JSON.stringify(withNull).replace('"arguments":"a"', '"arguments":"b\\"c"'))).toBe('b"c');
    expect(shape.toolIndex).toBe(2);
    // Text and arguments are different shapes: one never matches the other.
    const text = learned(TEMPLATE);
    expect(text.toolIndex).toBeUndefined();
    expect(text.match(JSON.stringify(argumentsChunk("x")))).toBeUndefined();
    expect(learned(JSON.stringify(argumentsChunk("x"))).match(TEMPLATE)).toBeUndefined();
    // Another call's fragment is another shape.
    expect(learned(JSON.stringify(argumentsChunk("x", 0))).match(JSON.stringify(argumentsChunk("y", 1)))).toBeUndefined();
  });
});
