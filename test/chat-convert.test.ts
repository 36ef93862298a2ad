import { AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { TOOL_CALL_EXTRAS_KEY, toWireMessages } from "../src/langchain/convert-messages.js";
import { decodeImageReply } from "../src/chat/decode-image-reply.js";
import { imagesFromMessage, toAIMessage } from "../src/langchain/build-reply-message.js";
import { replyFromResponse } from "../src/chat/collect-reply.js";
import { getModel } from "../src/catalog/models.js";
import { ParameterError } from "../src/errors.js";
import { makePng, makeWav } from "./chat-media.js";

const png = makePng(4, 3);
const pngUri = `data:image/png;base64,${png.toString("base64")}`;
const wav = makeWav(0.5);

describe("toWireMessages", () => {
  it("maps system, human, ai and tool messages to the wire's roles", () => {
    const wire = toWireMessages([
      new SystemMessage("be brief"),
      new HumanMessage({ content: "hi", name: "ana" }),
      new AIMessage("hello"),
      new ChatMessage({ role: "developer", content: "rules" }),
    ]);
    expect(wire).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi", name: "ana" },
      { role: "assistant", content: "hello" },
      { role: "developer", content: "rules" },
    ]);
  });

  it("sends tool calls with their arguments as JSON and their extra fields back", () => {
    const ai = new AIMessage({
      content: "",
      tool_calls: [{ id: "call_1", name: "add", args: { a: 1, b: 2 }, type: "tool_call" }],
      additional_kwargs: { [TOOL_CALL_EXTRAS_KEY]: { call_1: { thought_signature: "sig-abc" } } },
    });
    const [assistant, tool] = toWireMessages([ai, new ToolMessage({ content: "3", tool_call_id: "call_1" })]);
    expect(assistant).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          thought_signature: "sig-abc",
          id: "call_1",
          type: "function",
          function: { name: "add", arguments: '{"a":1,"b":2}' },
        },
      ],
    });
    expect(tool).toEqual({ role: "tool", tool_call_id: "call_1", content: "3" });
  });

  it.each([
    [
      "an OpenAI image_url part",
      { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
      { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
    ],
    [
      "a v1 image block with a URL",
      { type: "image", url: "https://example.com/a.png" },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    ],
    [
      "a v1 image block with base64 data",
      { type: "image", data: png.toString("base64"), mimeType: "image/png" },
      { type: "image_url", image_url: { url: pngUri } },
    ],
    [
      "a v1 image block with bytes",
      { type: "image", data: new Uint8Array(png), mimeType: "image/png" },
      { type: "image_url", image_url: { url: pngUri } },
    ],
    [
      "a v0 base64 image block",
      { type: "image", source_type: "base64", data: png.toString("base64"), mime_type: "image/png" },
      { type: "image_url", image_url: { url: pngUri } },
    ],
    [
      "a v1 wav audio block",
      { type: "audio", data: wav.toString("base64"), mimeType: "audio/wav" },
      { type: "input_audio", input_audio: { data: wav.toString("base64"), format: "wav" } },
    ],
    [
      "an mp3 audio block",
      { type: "audio", data: "AAAA", mimeType: "audio/mpeg" },
      { type: "input_audio", input_audio: { data: "AAAA", format: "mp3" } },
    ],
    [
      "an audio data URI",
      { type: "audio", url: `data:audio/wav;base64,${wav.toString("base64")}` },
      { type: "input_audio", input_audio: { data: wav.toString("base64"), format: "wav" } },
    ],
    [
      "an OpenAI input_audio part",
      { type: "input_audio", input_audio: { data: "AAAA", format: "mp3" } },
      { type: "input_audio", input_audio: { data: "AAAA", format: "mp3" } },
    ],
    [
      "a v1 video block",
      { type: "video", data: "AAAA", mimeType: "video/mp4" },
      { type: "video_url", video_url: { url: "data:video/mp4;base64,AAAA" } },
    ],
    [
      "a file block holding an image",
      { type: "file", data: png.toString("base64"), mimeType: "image/png" },
      { type: "image_url", image_url: { url: pngUri } },
    ],
  ])("converts %s", (_name, block, part) => {
    const [message] = toWireMessages([new HumanMessage({ content: [{ type: "text", text: "look" }, block] })]);
    expect(message?.content).toEqual([{ type: "text", text: "look" }, part]);
  });

  it("joins text-only block content into a string", () => {
    const [message] = toWireMessages([
      new HumanMessage({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ]);
    expect(message?.content).toBe("ab");
  });

  it.each([
    ["audio in ogg", { type: "audio", data: "AAAA", mimeType: "audio/ogg" }, /mp3 or wav only.*Convert/],
    ["audio given as a link", { type: "audio", url: "https://example.com/a.mp3" }, /inline/],
    ["a file id", { type: "image", fileId: "file-1" }, /no file store/],
    ["an unknown block", { type: "hologram" }, /not supported/],
  ])("refuses %s with a message that names the fix", (_name, block, message) => {
    expect(() => toWireMessages([new HumanMessage({ content: [block] })])).toThrow(ParameterError);
    expect(() => toWireMessages([new HumanMessage({ content: [block] })])).toThrow(message);
  });
});

describe("image replies", () => {
  const markdown = `Here it is:\n![poster](${pngUri})`;

  it("decodes the Markdown data URI into text and image blocks", () => {
    expect(decodeImageReply(markdown)).toEqual([
      { type: "text", text: "Here it is:" },
      { type: "image", mimeType: "image/png", data: png.toString("base64") },
    ]);
    expect(decodeImageReply("no image here")).toBeUndefined();
  });

  it("puts the PNG bytes on the AIMessage of an image model", () => {
    const model = getModel("gamma-2.5-flash-image");
    const reply = replyFromResponse(
      {
        id: "r1",
        object: "chat.completion",
        created: 1,
        model: model.servedAs,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: markdown } }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      },
      model,
      { requestId: "req" },
      false,
    );
    const message = toAIMessage({
      ...reply,
      toolCalls: [],
      invalidToolCalls: [],
      toolCallExtras: {},
      model: model.id,
      requestedModel: model.id,
      fallbackFrom: [],
      images: 1,
      imageLinks: [],
    });
    const [image] = imagesFromMessage(message);
    expect(image?.mimeType).toBe("image/png");
    expect(image?.bytes.equals(png)).toBe(true);
    expect(message.text).toBe("Here it is:");
    expect(message.response_metadata.images).toBe(1);
  });

  it("sends an image reply back as Markdown on the next turn", () => {
    const ai = new AIMessage({ content: [{ type: "image", mimeType: "image/png", data: png.toString("base64") }] });
    expect(toWireMessages([ai])[0]?.content).toBe(`![image](${pngUri})`);
  });
});
