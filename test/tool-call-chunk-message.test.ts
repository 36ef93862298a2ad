import { AIMessageChunk } from "@langchain/core/messages";
import type { ToolCallChunk } from "@langchain/core/messages/tool";
import { concat } from "@langchain/core/utils/stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toEventChunk } from "../src/chat/build-reply-message.js";

// toEventChunk builds tool-call chunks without LangChain's lazy getters (they keep every message
// alive past young-generation GCs); whatever a consumer reads must be what LangChain would give.
const SEQUENCES: Record<string, ToolCallChunk[][]> = {
  "one call, split arguments": [
    [{ type: "tool_call_chunk", index: 0, id: "call_1", name: "get_weather", args: "" }],
    [{ type: "tool_call_chunk", index: 0, args: '{"city": "Pa' }],
    [{ type: "tool_call_chunk", index: 0, args: 'ris", "unit": "celsius"}' }],
  ],
  "parallel calls in one chunk": [
    [
      { type: "tool_call_chunk", index: 0, id: "call_a", name: "get_weather", args: '{"city":"London"}' },
      { type: "tool_call_chunk", index: 1, id: "call_b", name: "get_weather", args: '{"city":' },
    ],
    [{ type: "tool_call_chunk", index: 1, args: '"Tokyo"}' }],
  ],
  "arguments that are not an object": [[{ type: "tool_call_chunk", index: 0, id: "call_x", name: "lookup", args: "[1, 2" }]],
};

function langchains(chunks: ToolCallChunk[]): AIMessageChunk {
  return new AIMessageChunk({ content: "", tool_call_chunks: chunks });
}

function ours(chunks: ToolCallChunk[]): AIMessageChunk {
  return toEventChunk({ type: "tool_call_chunks", chunks });
}

function visible(message: AIMessageChunk) {
  return {
    content: message.content,
    tool_call_chunks: message.tool_call_chunks,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
    serialized: JSON.parse(JSON.stringify(message.toJSON())),
  };
}

describe("tool-call chunk messages", () => {
  it.each(Object.entries(SEQUENCES))("equal LangChain's own, chunk by chunk and merged (%s)", (_name, sequence) => {
    for (const chunks of sequence) expect(visible(ours(chunks))).toEqual(visible(langchains(chunks)));
    const mergedOurs = sequence.map(ours).reduce((left, right) => concat(left, right));
    const mergedTheirs = sequence.map(langchains).reduce((left, right) => concat(left, right));
    expect(visible(mergedOurs)).toEqual(visible(mergedTheirs));
    expect(mergedOurs.tool_calls!.length + mergedOurs.invalid_tool_calls!.length).toBeGreaterThan(0);
  });

  it("equal LangChain's own for any fragments of any calls", () => {
    const fragment = fc.record(
      {
        type: fc.constant("tool_call_chunk" as const),
        index: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        id: fc.option(fc.constantFrom("call_1", "call_2", ""), { nil: undefined }),
        name: fc.option(fc.constantFrom("get_weather", "lookup"), { nil: undefined }),
        args: fc.option(fc.oneof(fc.constantFrom("", " ", "{}", '{"city": "Pa', 'ris"}', "[1", "null", '{"a": {"b": [1, 2'), fc.string()), { nil: undefined }),
      },
      { requiredKeys: ["type"] },
    );
    fc.assert(
      fc.property(fc.array(fragment, { minLength: 1, maxLength: 4 }), (chunks) => {
        expect(visible(ours(chunks))).toEqual(visible(langchains(chunks)));
      }),
      { numRuns: 500 },
    );
  });

  it("holds tool_calls as plain data, not accessors", () => {
    const message = ours(SEQUENCES["one call, split arguments"]![1]!);
    for (const target of [message, message.lc_kwargs]) {
      for (const name of ["tool_calls", "invalid_tool_calls", "tool_call_chunks"]) {
        const descriptor = Object.getOwnPropertyDescriptor(target, name);
        expect(descriptor && "value" in descriptor).toBe(true);
      }
    }
  });
});
