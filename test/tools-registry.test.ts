import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage, HumanMessage, ToolMessage, createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../src/errors.js";
import { createTools, listToolNames } from "../tools/index.js";

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "svc-flow-registry-"));
  await writeFile(path.join(workspace, "prices.csv"), "item,yuan\nlamp,120\n");
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("tool registry", () => {
  it("lists every tool by name", () => {
    expect(listToolNames()).toEqual([
      "calculator",
      "compose_music",
      "current_time",
      "describe_image",
      "edit_image",
      "fetch_url",
      "generate_image",
      "list_files",
      "read_file",
      "understand_audio",
      "write_file",
    ]);
  });

  it("creates the named tools in the order given, ready to call", async () => {
    const [read, calculator] = createTools(["read_file", "calculator"], { workspace });
    expect([read?.name, calculator?.name]).toEqual(["read_file", "calculator"]);
    expect(await read!.invoke({ path: "prices.csv" })).toBe("item,yuan\nlamp,120\n");
    expect(await calculator!.invoke({ expression: "120 * 3" })).toBe("360");
  });

  it("passes context settings to the tools", async () => {
    const [time] = createTools(["current_time"], {
      now: () => new Date("2030-01-01T00:00:00Z"),
      timeZone: "Asia/Tokyo",
    });
    expect(JSON.parse(await time!.invoke({}))).toMatchObject({
      timeZone: "Asia/Tokyo",
      local: "2030-01-01T09:00:00+09:00",
    });
  });

  it("creates a tool listed twice only once", () => {
    expect(createTools(["calculator", "calculator"]).map((tool) => tool.name)).toEqual(["calculator"]);
  });

  it("refuses unknown names, listing the known tools", () => {
    expect(() => createTools(["calculator", "shell", "browser"])).toThrow(
      'Unknown tools "shell", "browser". Known tools: calculator, compose_music, current_time, describe_image, edit_image, fetch_url, ' +
        "generate_image, list_files, read_file, understand_audio, write_file.",
    );
    try {
      createTools(["shell"]);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe("unknown_tool");
    }
  });

  it("refuses a file tool when the context has no workspace", () => {
    expect(() => createTools(["write_file"], {})).toThrow(/write_file tool needs a workspace folder/);
  });

  it.each([
    ["calculator", ["expression"]],
    ["current_time", []],
    ["fetch_url", ["url"]],
    ["list_files", []],
    ["read_file", ["path"]],
    ["write_file", ["path", "content"]],
  ])("sends %s's parameters to the model intact, with only %j required", (name, required) => {
    const [tool] = createTools([name], { workspace });
    const schema = z.toJSONSchema(tool!.schema as z.ZodType) as {
      properties: Record<string, { description?: string }>;
      required?: string[];
    };
    const wire = convertToOpenAITool(tool!).function;
    expect(wire.name).toBe(name);
    expect(wire.description?.length).toBeGreaterThan(80);
    expect(wire.parameters).toMatchObject({ type: "object", properties: schema.properties });
    expect(Object.keys(schema.properties).length).toBeGreaterThan(0);
    for (const property of Object.values(schema.properties)) expect(property.description).toBeTruthy();
    expect((wire.parameters as { required?: string[] }).required ?? []).toEqual(required);
  });

  it("offers write_file's modes as an enum", () => {
    const [tool] = createTools(["write_file"], { workspace });
    expect(convertToOpenAITool(tool!).function.parameters).toMatchObject({
      properties: { mode: { type: "string", enum: ["overwrite", "append", "create"] } },
    });
  });
});

describe("tool errors inside an agent", () => {
  it("reach the model as error ToolMessages it can act on, and the run goes on", async () => {
    const model = fakeModel()
      .respondWithTools([
        { id: "call-1", name: "read_file", args: { path: "../../etc/passwd" } },
        { id: "call-2", name: "calculator", args: { expression: "(2 + 3" } },
        { id: "call-3", name: "fetch_url", args: { url: "file:///etc/passwd" } },
        { id: "call-4", name: "calculator", args: { expression: 42 } },
        { id: "call-5", name: "calculator", args: { expression: "6 * 7" } },
      ])
      .respond(new AIMessage("Done."));
    const agent = createAgent({ model, tools: createTools(["read_file", "calculator", "fetch_url"], { workspace }) });
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(result.messages.at(-1)?.content).toBe("Done.");
    // What the model was shown on its second turn: one ToolMessage per call.
    const seen = model.calls[1]!.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    const byId = Object.fromEntries(seen.map((message) => [message.tool_call_id, message]));
    expect(byId["call-1"]).toMatchObject({ status: "error" });
    expect(byId["call-1"]!.content).toContain('Path "../../etc/passwd" is refused');
    expect(byId["call-2"]!.content).toContain('At column 7: Expected ")"');
    expect(byId["call-3"]!.content).toContain('"file:" is refused');
    expect(byId["call-4"]).toMatchObject({ status: "error" });
    expect(byId["call-4"]!.content).toContain("expected string");
    expect(byId["call-5"]).toMatchObject({ content: "42" });
    expect(byId["call-5"]!.status).not.toBe("error");
  });
});
