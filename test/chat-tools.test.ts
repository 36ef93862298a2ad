import { tool } from "@langchain/core/tools";
import { AIMessageChunk } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { ToolCallAssembler } from "../src/chat/assemble-tool-calls.js";
import { toJsonSchema } from "../src/chat/json-schema.js";
import { toWireTool, toWireToolChoice } from "../src/langchain/convert-tools.js";
import { ParameterError } from "../src/errors.js";
import type { ToolCallDelta } from "../src/gateway/wire.js";

const weatherParameters = {
  type: "object",
  properties: {
    city: { type: "string", description: "City name" },
    unit: { type: "string", enum: ["c", "f"] },
    days: { type: "integer", minimum: 1, maximum: 7 },
  },
  required: ["city", "unit", "days"],
};

describe("toJsonSchema", () => {
  it("converts a zod 4 schema with z.toJSONSchema, keeping descriptions, enums and bounds", () => {
    const schema = z.object({
      city: z.string().describe("City name"),
      unit: z.enum(["c", "f"]),
      days: z.number().int().min(1).max(7),
    });
    expect(toJsonSchema(schema, "test")).toMatchObject(weatherParameters);
  });

  it("converts a zod 3 schema with zod-to-json-schema", () => {
    const schema = z3.object({
      city: z3.string().describe("City name"),
      unit: z3.enum(["c", "f"]),
      days: z3.number().int().min(1).max(7),
    });
    expect(toJsonSchema(schema, "test")).toMatchObject(weatherParameters);
  });

  it("passes a JSON Schema through without its $schema key", () => {
    expect(toJsonSchema({ $schema: "http://json-schema.org/draft-07/schema#", ...weatherParameters }, "test")).toEqual(
      weatherParameters,
    );
  });

  it("never gives the empty schema zod-to-json-schema returns for a zod 4 object", () => {
    const converted = toJsonSchema(z.object({ q: z.string() }), "test");
    expect(converted.properties).toEqual({ q: { type: "string" } });
  });
});

describe("toWireTool", () => {
  it("converts a LangChain tool() with zod 4 parameters", () => {
    const weather = tool(async () => "sunny", {
      name: "weather",
      description: "Weather for a city",
      schema: z.object({
        city: z.string().describe("City name"),
        unit: z.enum(["c", "f"]),
        days: z.number().int().min(1).max(7),
      }),
    });
    const wire = toWireTool(weather);
    expect(wire.function.name).toBe("weather");
    expect(wire.function.description).toBe("Weather for a city");
    expect(wire.function.parameters).toMatchObject(weatherParameters);
  });

  it("converts a LangChain tool() with zod 3 parameters", () => {
    const weather = tool(async () => "sunny", {
      name: "weather",
      description: "Weather for a city",
      schema: z3.object({
        city: z3.string().describe("City name"),
        unit: z3.enum(["c", "f"]),
        days: z3.number().int().min(1).max(7),
      }),
    });
    expect(toWireTool(weather).function.parameters).toMatchObject(weatherParameters);
  });

  it("accepts OpenAI-style definitions and { name, schema } objects", () => {
    expect(toWireTool({ type: "function", function: { name: "w", parameters: weatherParameters } })).toEqual({
      type: "function",
      function: { name: "w", parameters: weatherParameters },
    });
    expect(toWireTool({ name: "w", description: "d", schema: weatherParameters }).function).toEqual({
      name: "w",
      description: "d",
      parameters: weatherParameters,
    });
  });

  it("hands back a tool it converted as it is, and copies a user's definition", () => {
    const definition = { type: "function" as const, function: { name: "w", parameters: weatherParameters } };
    const wire = toWireTool(definition);
    expect(wire).not.toBe(definition);
    expect(toWireTool(wire)).toBe(wire);
    expect(toWireTool(definition)).not.toBe(wire);
  });
});

describe("toWireToolChoice", () => {
  const tools = [toWireTool({ name: "weather", schema: weatherParameters })];
  it.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    ["any", "required"],
    ["weather", { type: "function", function: { name: "weather" } }],
    [
      { type: "function", function: { name: "weather" } },
      { type: "function", function: { name: "weather" } },
    ],
    [
      { type: "tool", name: "weather" },
      { type: "function", function: { name: "weather" } },
    ],
  ])("maps %j to %j", (choice, wire) => {
    expect(toWireToolChoice(choice, tools)).toEqual(wire);
  });

  it("refuses a tool name that is not bound", () => {
    expect(() => toWireToolChoice("calculator", tools)).toThrow(ParameterError);
  });
});

describe("ToolCallAssembler", () => {
  it("assembles parallel calls by index and keeps extra fields", () => {
    const assembler = new ToolCallAssembler();
    assembler.add([
      {
        index: 0,
        id: "a",
        type: "function",
        function: { name: "add", arguments: "" },
        thought_signature: "s1",
      } as ToolCallDelta,
      { index: 1, id: "b", type: "function", function: { name: "mul", arguments: '{"x"' } },
    ]);
    assembler.add([{ index: 0, function: { arguments: '{"a":1}' } }]);
    assembler.add([{ index: 1, function: { arguments: ":2}" } }]);
    const { toolCalls, invalidToolCalls, extras } = assembler.finish();
    expect(toolCalls).toEqual([
      { id: "a", name: "add", arguments: { a: 1 } },
      { id: "b", name: "mul", arguments: { x: 2 } },
    ]);
    expect(invalidToolCalls).toEqual([]);
    expect(extras).toEqual({ a: { thought_signature: "s1" } });
  });

  it("falls back to position when index is absent and opens a new call when an index is reused with a new id", () => {
    const assembler = new ToolCallAssembler();
    assembler.add([
      { id: "a", function: { name: "f", arguments: '{"n":' } },
      { id: "b", function: { name: "g", arguments: "{" } },
    ]);
    assembler.add([{ function: { arguments: "1}" } }, { function: { arguments: "}" } }]);
    assembler.add([{ index: 0, id: "c", function: { name: "h", arguments: "{}" } }]);
    expect(assembler.finish().toolCalls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ["a", "f", { n: 1 }],
      ["b", "g", {}],
      ["c", "h", {}],
    ]);
  });

  it("reports cut-off arguments as an invalid tool call instead of guessing", () => {
    const assembler = new ToolCallAssembler();
    assembler.add([{ index: 0, id: "a", function: { name: "f", arguments: '{"text":"hel' } }]);
    const { toolCalls, invalidToolCalls } = assembler.finish();
    expect(toolCalls).toEqual([]);
    expect(invalidToolCalls[0]).toMatchObject({ id: "a", name: "f", arguments: '{"text":"hel' });
  });

  it("gives fragments ids and indices that merge into the same calls as LangChain chunks", () => {
    const assembler = new ToolCallAssembler();
    const chunks = [
      ...assembler.add([{ index: 3, function: { name: "f", arguments: '{"a"' } }]),
      ...assembler.add([{ index: 3, function: { arguments: ":1}" } }]),
    ];
    const merged = chunks
      .map(
        (fragment) =>
          new AIMessageChunk({
            content: "",
            tool_call_chunks: [
              {
                type: "tool_call_chunk",
                index: fragment.index,
                id: fragment.id,
                name: fragment.name,
                args: fragment.arguments,
              },
            ],
          }),
      )
      .reduce((left, right) => left.concat(right));
    const [call] = assembler.finish().toolCalls;
    expect(merged.tool_calls).toEqual([{ type: "tool_call", id: call?.id, name: "f", args: { a: 1 } }]);
  });

  it("rebuilds any arguments split at any points, surrogate pairs included", () => {
    const value = fc.dictionary(
      fc.string({ unit: "grapheme", maxLength: 6 }),
      fc.oneof(fc.string({ unit: "binary" }), fc.integer(), fc.boolean()),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(value, fc.array(fc.nat(), { maxLength: 12 }), (args, cuts) => {
        const text = JSON.stringify(args);
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const pieces = [0, ...points, text.length]
          .slice(1)
          .map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));
        const assembler = new ToolCallAssembler();
        assembler.add([{ index: 0, id: "x", function: { name: "f", arguments: "" } }]);
        for (const piece of pieces) assembler.add([{ index: 0, function: { arguments: piece } }]);
        expect(assembler.finish().toolCalls[0]?.arguments).toEqual(args);
      }),
    );
  });
});
