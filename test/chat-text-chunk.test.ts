import { AIMessageChunk } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { textChunk } from "../src/langchain/build-reply-message.js";

const ID = "chatcmpl-0123456789";

/** The plain way: LangChain's constructor with the fields as an object. */
function plainChunk(text: string, id: string): AIMessageChunk {
  return new AIMessageChunk({ id, content: text });
}

describe("textChunk", () => {
  it("builds the same chunk as LangChain's constructor given the fields as an object", () => {
    const ours = textChunk("Hello", ID);
    const plain = plainChunk("Hello", ID);
    expect(ours).toEqual(plain);
    expect(ours.id).toBe(ID);
    expect(ours.text).toBe(plain.text);
    expect(ours.contentBlocks).toEqual(plain.contentBlocks);
  });

  it("serializes as the object-form chunk does, id included", () => {
    const ours = JSON.parse(JSON.stringify(textChunk("Hello", ID)));
    expect(ours).toEqual(JSON.parse(JSON.stringify(plainChunk("Hello", ID))));
    expect(ours.kwargs.id).toBe(ID);
  });

  it("merges with other chunks into the message the object-form chunks merge into", () => {
    const ours = textChunk("Hello", ID).concat(textChunk(", world", ID));
    const plain = plainChunk("Hello", ID).concat(plainChunk(", world", ID));
    expect(ours).toEqual(plain);
    expect(ours.content).toBe("Hello, world");
  });
});
