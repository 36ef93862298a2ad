import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imagesFromMessage } from "../src/langchain/build-reply-message.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { ParameterError } from "../src/errors.js";
import { probeImage } from "../src/media/probe.js";
import { makeMp3, makeMp4, makePng, makeWav } from "./chat-media.js";
import { startHarness, startRecordingProxy, type Harness, type RecordingProxy } from "./chat-harness.js";

let harness: Harness;
let proxy: RecordingProxy;
let images: Server;
let imageURL: string;
const png = makePng(64, 32);

beforeAll(async () => {
  harness = await startHarness();
  proxy = await startRecordingProxy(harness.gateway.rootURL);
  images = createServer((_request, response) => response.writeHead(200, { "content-type": "image/png" }).end(png));
  await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
  imageURL = `http://127.0.0.1:${(images.address() as AddressInfo).port}/photo.png`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => images.close(() => resolve()));
  await proxy.close();
  await harness.close();
});

type WirePart = {
  type: string;
  image_url?: { url: string };
  input_audio?: { format: string };
  video_url?: { url: string };
};
const lastParts = (): WirePart[] => {
  const messages = proxy.requests.at(-1)!.body.messages as Array<{ content: WirePart[] }>;
  return messages.at(-1)!.content;
};

describe("multimodal input", () => {
  it("sends an image given as a data URI and the model sees it", async () => {
    const model = harness.model({ model: "beta-4o", baseURL: proxy.baseURL });
    const reply = await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "Describe the image." },
          { type: "image", data: png.toString("base64"), mimeType: "image/png" },
        ],
      }),
    ]);
    expect(lastParts()[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${png.toString("base64")}` },
    });
    expect(reply.text).toMatch(/64x32|64 x 32|64×32/);
  });

  it("sends an image given as a URL", async () => {
    const model = harness.model({ model: "gamma-2.5-flash", baseURL: proxy.baseURL });
    const reply = await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "What size is this image?" },
          { type: "image_url", image_url: { url: imageURL } },
        ],
      }),
    ]);
    expect(lastParts()[1]).toEqual({ type: "image_url", image_url: { url: imageURL } });
    expect(reply.text).toMatch(/64x32|64 x 32|64×32/);
  });

  it("sends wav audio to a gamma-2.5 model as input_audio and is billed for it", async () => {
    const wav = makeWav(3);
    const model = harness.model({ model: "gamma-2.5-flash", baseURL: proxy.baseURL });
    const reply = await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "How long is this clip?" },
          { type: "audio", data: wav.toString("base64"), mimeType: "audio/wav" },
        ],
      }),
    ]);
    expect(lastParts()[1]).toMatchObject({ type: "input_audio", input_audio: { format: "wav" } });
    expect(reply.text).toMatch(/3\.0 s/);
    // About 1900 prompt tokens a minute: 3 s is 95.
    expect(reply.usage_metadata?.input_tokens).toBeGreaterThanOrEqual(95);
  });

  it("sends mp3 audio given as a data URI", async () => {
    const mp3 = makeMp3(2);
    const model = harness.model({ model: "gamma-2.5-flash-lite", baseURL: proxy.baseURL });
    const reply = await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "Describe this audio clip." },
          { type: "audio", url: `data:audio/mpeg;base64,${mp3.toString("base64")}` },
        ],
      }),
    ]);
    expect(lastParts()[1]).toMatchObject({ type: "input_audio", input_audio: { format: "mp3" } });
    expect(reply.text).toMatch(/MP3/);
  });

  it("refuses audio for a model without audio input, and audio in another format, before any request", async () => {
    const before = proxy.requests.length;
    const wav = { type: "audio", data: makeWav(1).toString("base64"), mimeType: "audio/wav" };
    await expect(
      harness.model({ model: "beta-4o", baseURL: proxy.baseURL }).invoke([new HumanMessage({ content: [wav] })]),
    ).rejects.toThrow(/beta-4o does not take audio input/);
    const ogg = { type: "audio", data: "T2dnUw==", mimeType: "audio/ogg" };
    await expect(
      harness
        .model({ model: "gamma-2.5-flash", baseURL: proxy.baseURL })
        .invoke([new HumanMessage({ content: [ogg] })]),
    ).rejects.toThrow(ParameterError);
    expect(proxy.requests.length).toBe(before);
  });

  it("sends video to gamma-2.5-pro", async () => {
    const mp4 = makeMp4(2);
    const model = harness.model({ model: "gamma-2.5-pro", baseURL: proxy.baseURL });
    const reply = await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "How long is this video?" },
          { type: "video", data: mp4.toString("base64"), mimeType: "video/mp4" },
        ],
      }),
    ]);
    expect(lastParts()[1]?.type).toBe("video_url");
    expect(reply.text).toMatch(/2\.0 s/);
  });
});

describe("image generation", () => {
  it("decodes the reply into PNG bytes on the message and bills one image", async () => {
    const ledger = new CostLedger();
    const model = harness.model({ model: "gamma-2.5-flash-image", ledger });
    const reply = await model.invoke("A poster of a red lantern at night.");
    const [image] = imagesFromMessage(reply);
    expect(image?.mimeType).toBe("image/png");
    expect(probeImage(image!.bytes)?.format).toBe("png");
    expect(reply.response_metadata.images).toBe(1);
    expect(ledger.entries()[0]).toMatchObject({ images: 1, yuan: 0.42, priceSource: "published" });
  });

  it("decodes a streamed image reply too, and edits an image sent back as input", async () => {
    const model = harness.model({ model: "gamma-2.5-flash-image", baseURL: proxy.baseURL });
    let streamed: Awaited<ReturnType<typeof model.invoke>> | undefined;
    for await (const chunk of await model.stream("A blue square."))
      streamed = streamed ? streamed.concat(chunk) : chunk;
    const [image] = imagesFromMessage(streamed!);
    expect(probeImage(image!.bytes)?.format).toBe("png");
    const edited = await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "Make it brighter." },
          { type: "image", data: image!.bytes.toString("base64"), mimeType: "image/png" },
        ],
      }),
    ]);
    expect(lastParts()[1]?.type).toBe("image_url");
    expect(imagesFromMessage(edited)).toHaveLength(1);
  });
});
