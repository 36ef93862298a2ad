import { readFile, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { callChat } from "../src/chat/call-chat.js";
import { GatewayClient } from "../src/gateway/gateway-client.js";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { probeImage } from "../src/media/probe.js";
import { createTools, listToolNames, type ToolContext } from "../tools/index.js";
import { startAgentHarness, startFileServer, type AgentHarness } from "./agent-harness.js";

let harness: AgentHarness;
let fixturePng: Buffer;

beforeAll(async () => {
  harness = await startAgentHarness();
  fixturePng = await readFile(new URL("./fixtures/media/palette.png", import.meta.url));
});
afterAll(async () => {
  await harness.close();
});

async function setUp(files: Record<string, string | Buffer> = {}) {
  const workspace = await harness.workspace(files);
  const ledger = new CostLedger();
  const context: ToolContext = { workspace, gateway: harness.connection, ledger };
  const [generate, edit, describeTool] = createTools(["generate_image", "edit_image", "describe_image"], context);
  return { workspace, ledger, generate: generate!, edit: edit!, describe: describeTool! };
}

describe("generate_image", () => {
  it("saves the PNG in the workspace and returns its path and size, never the image data", async () => {
    const { workspace, ledger, generate } = await setUp();
    const text = (await generate.invoke({ prompt: "a red paper lantern at night" })) as string;
    expect(text).not.toMatch(/base64|data:image/);
    const result = JSON.parse(text) as {
      path: string;
      format: string;
      width: number;
      height: number;
      bytes: number;
      model: string;
    };
    expect(result).toMatchObject({
      path: "images/red-paper-lantern-at-night.png",
      format: "png",
      model: "gamma-2.5-flash-image",
    });
    const saved = await readFile(path.join(workspace, result.path));
    expect(saved.length).toBe(result.bytes);
    expect(probeImage(saved)).toEqual({ format: "png", width: result.width, height: result.height });
    const [entry] = ledger.entries();
    expect(entry).toMatchObject({
      kind: "image",
      modelRequested: "gamma-2.5-flash-image",
      images: 1,
      yuan: 0.42,
      status: "ok",
      tags: { tool: "generate_image" },
    });
  });

  it("never replaces an existing file: a numbered name is used and reported", async () => {
    const { workspace, generate } = await setUp({ "poster.png": "keep me" });
    const result = JSON.parse((await generate.invoke({ prompt: "a blue kite", path: "poster.png" })) as string) as {
      path: string;
    };
    expect(result.path).toBe("poster-2.png");
    expect(await readFile(path.join(workspace, "poster.png"), "utf8")).toBe("keep me");
  });

  it.each([
    ["../escape.png", /climbs out of the workspace/],
    ["/etc/escape.png", /absolute path outside the workspace/],
    ["poster.jpg", /ends in \.jpg, but the file will be PNG/],
  ])("refuses the output path %s before paying for an image", async (requested, message) => {
    const { ledger, generate } = await setUp();
    const before = harness.gateway.stats().keys.flatMap((key) => key.billed).length;
    await expect(generate.invoke({ prompt: "a lantern", path: requested })).rejects.toThrow(message);
    expect(ledger.entries()).toEqual([]);
    expect(harness.gateway.stats().keys.flatMap((key) => key.billed).length).toBe(before);
  });
});

describe("edit_image", () => {
  it("edits a workspace image into a new file and leaves the source as it was", async () => {
    const { workspace, ledger, edit } = await setUp({ "photos/lantern.png": fixturePng });
    const result = JSON.parse(
      (await edit.invoke({ path: "photos/lantern.png", prompt: "make it blue" })) as string,
    ) as { path: string; source: string };
    expect(result).toMatchObject({ path: "photos/lantern-edited.png", source: "photos/lantern.png" });
    expect(probeImage(await readFile(path.join(workspace, result.path)))?.format).toBe("png");
    expect(await readFile(path.join(workspace, "photos/lantern.png"))).toEqual(fixturePng);
    expect(ledger.entries()).toHaveLength(1);
    expect(ledger.entries()[0]).toMatchObject({ images: 1, tags: { tool: "edit_image" } });
  });

  it.each([
    ["../outside.png", /climbs out of the workspace/],
    ["notes.txt", /is not a PNG, JPEG, GIF or WebP image/],
    ["nothing.png", /There is no file "nothing.png"/],
  ])("refuses the source %s without sending anything", async (source, message) => {
    const { ledger, edit } = await setUp({ "notes.txt": "not an image" });
    await expect(edit.invoke({ path: source, prompt: "make it blue" })).rejects.toThrow(message);
    expect(ledger.entries()).toEqual([]);
  });
});

describe("describe_image", () => {
  it("describes a workspace image with a vision model", async () => {
    const { ledger, describe: describeImage } = await setUp({ "palette.png": fixturePng });
    const facts = probeImage(fixturePng)!;
    const text = (await describeImage.invoke({ path: "palette.png" })) as string;
    expect(text).toContain(`${facts.width}x${facts.height}`);
    expect(ledger.entries()[0]).toMatchObject({
      kind: "chat",
      modelRequested: "alpha-sonnet-4-6",
      status: "ok",
      tags: { tool: "describe_image" },
    });
  });

  it("describes an image behind an http link", async () => {
    const server = await startFileServer({ "/lantern.png": { type: "image/png", body: fixturePng } });
    try {
      const { describe: describeImage } = await setUp();
      const facts = probeImage(fixturePng)!;
      expect(await describeImage.invoke({ url: `${server.url}/lantern.png` })).toContain(
        `${facts.width}x${facts.height}`,
      );
    } finally {
      await server.close();
    }
  });

  it.each([
    "file:///etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "ftp://example.com/a.png",
    "javascript:alert(1)",
  ])("refuses the non-http URL %s before sending anything", async (url) => {
    const { ledger, describe: describeImage } = await setUp();
    await expect(describeImage.invoke({ url })).rejects.toThrow(
      /is refused: describe_image takes http:\/\/ and https:\/\/ links only/,
    );
    expect(ledger.entries()).toEqual([]);
  });

  it("asks for exactly one of path or url", async () => {
    const { describe: describeImage } = await setUp({ "palette.png": fixturePng });
    await expect(describeImage.invoke({})).rejects.toThrow(/exactly one of path .* or url/);
    await expect(describeImage.invoke({ path: "palette.png", url: "https://example.com/a.png" })).rejects.toThrow(
      /exactly one/,
    );
  });
});

describe("gateway tools in the registry", () => {
  it("lists the gateway tools beside the others", () => {
    expect(listToolNames()).toEqual(
      expect.arrayContaining(["compose_music", "describe_image", "edit_image", "generate_image", "understand_audio"]),
    );
  });

  it.each([
    ["generate_image", ["prompt"]],
    ["edit_image", ["path", "prompt"]],
    ["describe_image", []],
    ["understand_audio", ["path"]],
    ["compose_music", ["prompt"]],
  ])("sends %s's parameters to the model intact, with only %j required", async (name, required) => {
    const [tool] = createTools([name], { workspace: await harness.workspace() });
    const schema = z.toJSONSchema(tool!.schema as z.ZodType) as {
      properties: Record<string, { description?: string }>;
    };
    const wire = convertToOpenAITool(tool!).function;
    expect(wire.description?.length).toBeGreaterThan(120);
    expect(wire.parameters).toMatchObject({ type: "object", properties: schema.properties });
    for (const property of Object.values(schema.properties)) expect(property.description).toBeTruthy();
    expect((wire.parameters as { required?: string[] }).required ?? []).toEqual(required);
  });

  it.each([
    [
      "generate_image",
      { image: "alpha-sonnet-4-6" },
      /generate_image tool cannot use alpha-sonnet-4-6: it does not generate images/,
    ],
    [
      "describe_image",
      { vision: "gamma-2.5-flash-image" },
      /describe_image tool cannot use gamma-2.5-flash-image: it answers with images, not text/,
    ],
    [
      "understand_audio",
      { audio: "beta-4o" },
      /understand_audio tool cannot use beta-4o: it does not take audio input. Use a model that does, e.g. gamma-2.5-flash/,
    ],
    ["edit_image", { image: "gamma-2.5-flsh-image" }, /Unknown model "gamma-2.5-flsh-image"/],
  ])("refuses %s on a model that cannot do its job, when it is created", async (name, models, message) => {
    const workspace = await harness.workspace();
    expect(() => createTools([name], { workspace, models })).toThrow(message);
  });

  it("sends its calls through the chat function it is given, instead of opening its own client", async () => {
    const workspace = await harness.workspace();
    const asked: unknown[] = [];
    const client = new GatewayClient(harness.connection);
    const [generate] = createTools(["generate_image"], {
      workspace,
      chat: ({ tool, ...call }, signal) => {
        asked.push({ model: call.model, tool });
        return callChat(call, { client, ...(signal === undefined ? {} : { signal }) });
      },
    });
    await generate!.invoke({ prompt: "a green lantern" });
    await client.close();
    expect(asked).toEqual([{ model: "gamma-2.5-flash-image", tool: "generate_image" }]);
    expect(await readdir(path.join(workspace, "images"))).toEqual(["green-lantern.png"]);
  });

  it("writes nothing outside the workspace even when the model asks for a path through a symlink", async () => {
    const outside = await harness.workspace();
    const workspace = await harness.workspace();
    await symlink(outside, path.join(workspace, "link"));
    const [generate] = createTools(["generate_image"], { workspace, gateway: harness.connection });
    await expect(generate!.invoke({ prompt: "a lantern", path: "link/poster.png" })).rejects.toThrow(
      /leads outside the workspace through a symbolic link/,
    );
    expect(await readdir(outside)).toEqual([".keep"]);
  });
});
