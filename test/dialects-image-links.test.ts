// Images a relay gives as links (Markdown, a bare link, or OpenRouter's `images` field) instead of
// inline: the core returns them, ChatGateway gives them as image blocks, and GatewayClient downloads
// them within its limits and only from the gateway itself or public addresses.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callChat } from "../src/chat/call-chat.js";
import type { ChatReply } from "../src/chat/chat-reply.js";
import { PrivateAddressError, TimeoutError, UpstreamError } from "../src/errors.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { ChatGateway } from "../src/langchain/chat-gateway.js";
import { probeImage } from "../src/media/probe.js";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { startFixtureRelay, type FixtureRelay } from "./relay-fixture-server.js";
import { createTools } from "../tools/index.js";
import { runText, tempDir } from "./workflow-harness.js";

const IMAGE_MODEL = "gamma-2.5-flash-image";
const HEAD = { id: "chatcmpl-img", object: "chat.completion", created: 1720000000, model: IMAGE_MODEL };
const USAGE = { prompt_tokens: 9, completion_tokens: 1290, total_tokens: 1299 };
let png: Buffer;
let relay: FixtureRelay;
let other: FixtureRelay;

/** A non-streamed image-model reply whose message is `message`. */
const replyWith = (message: Record<string, unknown>) => ({
  json: {
    ...HEAD,
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    usage: USAGE,
  },
});

beforeAll(async () => {
  png = await readFile(path.join(import.meta.dirname, "fixtures", "media", "palette.png"));
  relay = await startFixtureRelay();
  other = await startFixtureRelay();
});
afterAll(async () => {
  await relay.close();
  await other.close();
});

describe("image links in replies", () => {
  it.each([
    ["a Markdown image", (url: string) => ({ content: `Here it is.\n\n![poster](${url})` })],
    ["a bare link to an image file", (url: string) => ({ content: `Done: ${url}` })],
    [
      "OpenRouter's images field",
      (url: string) => ({ content: "Here it is.", images: [{ type: "image_url", image_url: { url } }] }),
    ],
  ])("returns the link of %s, and counts the image", async (name, message) => {
    const url = relay.serve(`/cdn/${name.replace(/\W/g, "-")}.png`, { contentType: "image/png", body: png });
    const reply = (await relay.call(name, replyWith(message(url)), false, { model: IMAGE_MODEL })) as ChatReply;
    expect(reply.imageLinks).toEqual([url]);
    expect(reply.images).toBe(1);
  });

  it("returns no links for a text model whose reply mentions an image file", async () => {
    const reply = (await relay.call(
      "text model link",
      replyWith({ content: "See https://example.com/diagram.png for the layout." }),
      false,
    )) as ChatReply;
    expect(reply.imageLinks).toEqual([]);
  });

  it("gives ChatGateway's message an image block with the link", async () => {
    const url = relay.serve("/cdn/block.png", { contentType: "image/png", body: png });
    relay.set("draw a lantern", replyWith({ content: `![image](${url})` }));
    const model = new ChatGateway({ model: IMAGE_MODEL, apiKey: "sk-fixture", baseURL: relay.baseURL, maxRetries: 0 });
    const message = await model.invoke("draw a lantern");
    expect(message.content).toEqual([{ type: "image", url }]);
    expect(message.contentBlocks).toEqual([{ type: "image", url }]);
  });
});

describe("downloading a linked image", () => {
  it("downloads an image the gateway serves on its own origin, typed by its bytes", async () => {
    const url = relay.serve("/images/own.png", { contentType: "application/octet-stream", body: png });
    const image = await relay.client.downloadImage(url);
    expect(image.mimeType).toBe("image/png");
    expect(image.bytes.equals(png)).toBe(true);
  });

  it("refuses a link to a private address that is not the gateway's", async () => {
    const url = other.serve("/images/elsewhere.png", { contentType: "image/png", body: png });
    await expect(relay.client.downloadImage(url)).rejects.toBeInstanceOf(PrivateAddressError);
  });

  it("refuses a page that is not an image, by its content type", async () => {
    const url = relay.serve("/images/page.png", { contentType: "text/html", body: "<html>Not found</html>" });
    const error = await relay.client.downloadImage(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toContain("text/html, not an image");
  });

  it("refuses bytes that are not an image even when labelled as one", async () => {
    const url = relay.serve("/images/fake.png", { contentType: "image/png", body: "GIF? no, text" });
    await expect(relay.client.downloadImage(url)).rejects.toThrow(/not a PNG, JPEG, GIF or WebP/);
  });

  it("refuses an image over the size limit", async () => {
    const url = relay.serve("/images/large.png", { contentType: "image/png", body: png });
    await expect(relay.client.downloadImage(url, { maxBytes: png.length - 1 })).rejects.toThrow(/over the limit/);
  });

  it("gives up on a link that never sends its body with a TimeoutError", async () => {
    const url = relay.serve("/images/stalled.png", { contentType: "image/png", body: png, stall: true });
    await expect(relay.client.downloadImage(url, { timeoutMs: 300 })).rejects.toBeInstanceOf(TimeoutError);
  });

  it("refuses a link that is not http(s)", async () => {
    await expect(relay.client.downloadImage("file:///etc/passwd")).rejects.toThrow(/not an http\(s\) URL/);
  });
});

describe.each(["clean", "openrouter"] as const)("the local gateway with imageLinks, %s dialect", (dialect) => {
  let gateway: LocalGateway;
  let client: GatewayClient;
  beforeAll(async () => {
    gateway = await startLocalGateway({ config: { dialect, imageLinks: true } });
    client = new GatewayClient({ apiKey: "sk-local-demo", baseURL: gateway.baseURL });
  });
  afterAll(async () => {
    await client.close();
    await gateway.close();
  });

  it("answers an image model with a link it serves, streamed and not, and the link gives the PNG", async () => {
    const request = {
      model: IMAGE_MODEL,
      messages: [{ role: "user" as const, content: "A red paper lantern at night" }],
    };
    const whole = await callChat(request, { client });
    let streamed: ChatReply | undefined;
    for await (const event of await callChat({ ...request, stream: true }, { client }))
      if (event.type === "finish") streamed = event.reply;
    for (const reply of [whole, streamed!]) {
      expect(reply.content).not.toContain("base64");
      expect(reply.images).toBe(1);
      expect(reply.imageLinks).toEqual([
        expect.stringMatching(new RegExp(`^${gateway.rootURL}/images/[0-9a-f-]+\\.png$`)),
      ]);
      const image = await client.downloadImage(reply.imageLinks[0]!);
      expect(probeImage(image.bytes)?.format).toBe("png");
    }
  });

  it("has a workflow image step download the linked image and keep it as an artifact", async () => {
    const { result } = await runText(
      gateway,
      'version: 1\nname: linked-poster\nsteps:\n  - id: poster\n    uses: image\n    with: { model: gamma-2.5-flash-image, prompt: "A red lantern on a table" }\n',
    );
    expect(result.status).toBe("done");
    const poster = result.outputs?.poster as { artifact: string; bytes: number; width: number };
    expect(poster.artifact).toMatch(/^artifacts\/[0-9a-f]{64}\.png$/);
    const bytes = await readFile(path.join(result.runDir, poster.artifact));
    expect(bytes.length).toBe(poster.bytes);
    expect(probeImage(bytes)?.width).toBe(poster.width);
  });

  it("has the generate_image tool save the linked image in its workspace, on its own client", async () => {
    const workspace = await tempDir();
    const [generate] = createTools(["generate_image"], {
      workspace,
      gateway: { baseURL: gateway.baseURL, apiKey: "sk-local-demo" },
    });
    const saved = JSON.parse(
      String(await generate!.invoke({ prompt: "A red paper lantern at night", path: "lantern.png" })),
    ) as { path: string; bytes: number };
    expect(saved.path).toBe("lantern.png");
    expect(probeImage(await readFile(path.join(workspace, "lantern.png")))?.format).toBe("png");
  });

  it("has a workflow tool step's edit_image save the linked image, through the run's client", async () => {
    const { result } = await runText(
      gateway,
      `version: 1\nname: linked-edit\nsteps:\n  - id: draw\n    uses: tool\n    with: { tool: generate_image, input: { prompt: "A lantern", path: "a.png" } }\n  - id: edit\n    uses: tool\n    needs: [draw]\n    with: { tool: edit_image, input: { path: "a.png", prompt: "Make it blue", output_path: "b.png" } }\n`,
    );
    expect(result.status).toBe("done");
    const bytes = await readFile(path.join(result.runDir, "workspace", "b.png"));
    expect(probeImage(bytes)?.format).toBe("png");
  });
});
