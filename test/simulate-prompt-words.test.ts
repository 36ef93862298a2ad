import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readConversation } from "../src/server/simulate/conversation.js";
import { wordsOf } from "../src/server/simulate/prompt-words.js";

const WORD_PATTERN = /[\p{L}][\p{L}\p{N}'’-]*/gu;
const PARTS = [
  "a",
  "Zed",
  "x1",
  "9",
  "'",
  "’",
  "-",
  "_",
  " ",
  "\n",
  ".",
  "don't",
  "well-known",
  "é",
  "東京",
  "😀",
  "Ǆ",
  "٣",
  "\u0301",
];

describe("wordsOf", () => {
  it("gives the words the word pattern matches, ASCII text or not", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PARTS), { maxLength: 30 }), (parts) => {
        const text = parts.join("");
        expect(wordsOf(text)).toEqual(text.match(WORD_PATTERN) ?? []);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        expect(wordsOf(text)).toEqual(text.match(WORD_PATTERN) ?? []);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("readConversation", () => {
  it("reads system text, user texts, media and tool results as filters and maps over the messages would", () => {
    const image = { type: "image_url" as const, image_url: { url: "data:image/png;base64,AAAA" } };
    const conversation = readConversation({
      messages: [
        { role: "system", content: "Be terse." },
        { role: "user", content: [{ type: "text", text: "Look:" }, image] },
        { role: "developer", content: "Use metric." },
        { role: "user", content: "And this?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "look", arguments: '{"a":1}' } }],
        },
        { role: "tool", tool_call_id: "c1", content: "done" },
      ],
    });
    expect(conversation.systemText).toBe("Be terse.\nUse metric.");
    expect(conversation.userTexts).toEqual(["Look:", "And this?"]);
    expect(conversation.userText).toBe("And this?");
    expect(conversation.media).toEqual([image]);
    expect(conversation.mediaIsNew).toBe(false);
    expect(conversation.lastRole).toBe("tool");
    expect(conversation.toolRounds).toBe(1);
    expect(conversation.toolResults).toEqual([{ callId: "c1", name: "look", arguments: '{"a":1}', content: "done" }]);
    const plain = readConversation({ messages: [{ role: "user", content: "Hi" }] });
    expect([plain.systemText, plain.userText, plain.media.length, plain.mediaIsNew]).toEqual(["", "Hi", 0, false]);
  });
});
