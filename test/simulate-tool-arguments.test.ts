import { Validator, type Schema } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkValue } from "../src/server/simulate/json-schema-check.js";
import { generateValue } from "../src/server/simulate/json-schema-values.js";
import { seededRandom } from "../src/server/simulate/seeded-random.js";
import { chat, tool, user } from "./simulate-helpers.js";

type JsonSchema = Record<string, unknown>;

const patterns = [
  "^[A-Z]{3}$",
  "^\\d{4}-\\d{2}$",
  "^(draft|final)-[a-z]+$",
  "^[a-z0-9_]{2,8}$",
  "^#[0-9a-f]{6}$",
  "^v\\d+(\\.\\d+)?$",
];
const formats = ["date", "date-time", "email", "uri", "uuid", "ipv4", "hostname"];
const names = [
  "city",
  "query",
  "path",
  "count",
  "amount",
  "name",
  "unit",
  "tags",
  "email",
  "when",
  "url",
  "x",
  "options",
  "expression",
];

const stringSchema = fc.oneof(
  fc.record({ type: fc.constant("string") }),
  fc
    .integer({ min: 0, max: 5 })
    .chain((min) =>
      fc.integer({ min, max: min + 20 }).map((max) => ({ type: "string", minLength: min, maxLength: max })),
    ),
  fc.constantFrom(...patterns).map((pattern) => ({ type: "string", pattern })),
  fc.constantFrom(...formats).map((format) => ({ type: "string", format })),
  fc
    .uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 })
    .map((values) => ({ type: "string", enum: values })),
);

const numberSchema = fc
  .record({
    type: fc.constantFrom("number", "integer"),
    low: fc.integer({ min: -1000, max: 1000 }),
    span: fc.integer({ min: 11, max: 500 }),
    exclusive: fc.boolean(),
    step: fc.option(fc.constantFrom(1, 2, 5, 0.5, 0.25), { nil: undefined }),
    bounded: fc.constantFrom("both", "low", "high", "none"),
  })
  .map(({ type, low, span, exclusive, step, bounded }) => {
    const schema: JsonSchema = { type };
    if (bounded === "both" || bounded === "low") schema[exclusive ? "exclusiveMinimum" : "minimum"] = low;
    if (bounded === "both" || bounded === "high") schema[exclusive ? "exclusiveMaximum" : "maximum"] = low + span;
    if (step !== undefined && !(type === "integer" && step < 1)) schema.multipleOf = step;
    return schema;
  });

const leaf = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc.constantFrom(1, "fixed", true).map((value) => ({ const: value })),
  fc.constantFrom("string", "integer", "boolean").map((type) => ({ type: [type, "null"] })),
);

const { schema } = fc.letrec<{ schema: JsonSchema; object: JsonSchema; array: JsonSchema; union: JsonSchema }>(
  (tie) => ({
    schema: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("object"), tie("array"), tie("union")),
    object: fc
      .uniqueArray(fc.tuple(fc.constantFrom(...names), tie("schema"), fc.boolean()), {
        maxLength: 4,
        selector: ([name]) => name,
      })
      .chain((entries) =>
        fc.record({ closed: fc.boolean() }).map(({ closed }) => ({
          type: "object",
          properties: Object.fromEntries(entries.map(([name, sub]) => [name, sub])),
          required: entries.filter(([, , required]) => required).map(([name]) => name),
          ...(closed ? { additionalProperties: false } : {}),
        })),
      ),
    array: fc
      .record({ items: tie("schema"), min: fc.integer({ min: 0, max: 2 }), extra: fc.integer({ min: 0, max: 3 }) })
      .map(({ items, min, extra }) => ({ type: "array", items, minItems: min, maxItems: min + extra })),
    union: fc
      .shuffledSubarray(
        [
          { type: "string", minLength: 1 },
          { type: "integer" },
          { type: "boolean" },
          { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        ],
        { minLength: 2 },
      )
      .chain((branches) => fc.constantFrom("anyOf", "oneOf").map((keyword) => ({ [keyword]: branches }))),
  }),
);

const parameters = schema.map(
  (sub): JsonSchema =>
    sub.type === "object" ? sub : { type: "object", properties: { value: sub }, required: ["value"] },
);

function valid(schema: JsonSchema, value: unknown): boolean {
  return new Validator(schema as Schema, "2020-12", false).validate(value).valid;
}

describe("tool arguments", () => {
  it("always validate against the tool's JSON Schema (checked by @cfworker/json-schema)", () => {
    fc.assert(
      fc.property(parameters, fc.integer(), (schema, seed) => {
        const value = generateValue(schema, { random: seededRandom(seed) });
        expect(valid(schema, value), JSON.stringify({ schema, value })).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("stay valid when filled from an arbitrary prompt", async () => {
    const prompts = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom(
        'Check the weather in Paris and Tokyo for 3 days, "urgent", see docs/plan.md and https://example.org/x',
        "What is 12 * 7 and 2 + 2? email me at bob@example.com on 2025-02-30",
        "Tags: red, green; count -5 of 1e9 items in ./a/b.c",
      ),
    );
    await fc.assert(
      fc.asyncProperty(parameters, prompts, fc.integer({ min: 0, max: 1000 }), async (schema, prompt, seed) => {
        const reply = await chat(
          "gamma-2.5-flash",
          [user(prompt || "hi")],
          {
            tools: [tool("do_it", "Does the thing", schema)],
            tool_choice: { type: "function", function: { name: "do_it" } },
          },
          { seed },
        );
        expect(reply.toolCalls.length).toBeGreaterThanOrEqual(1);
        for (const call of reply.toolCalls) {
          const value: unknown = JSON.parse(call.arguments);
          expect(valid(schema, value), JSON.stringify({ schema, prompt, value })).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("agree with our own checker on what is valid", () => {
    fc.assert(
      fc.property(parameters, fc.jsonValue(), (schema, value) => {
        expect(checkValue(schema, value)).toBe(valid(schema, value));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    [
      {
        type: "object",
        properties: { a: { $ref: "#/$defs/point" } },
        required: ["a"],
        $defs: {
          point: {
            type: "object",
            properties: { x: { type: "number" }, y: { type: "number" } },
            required: ["x", "y"],
            additionalProperties: false,
          },
        },
      },
    ],
    [
      {
        type: "object",
        allOf: [
          { properties: { n: { type: "integer", minimum: 10 } }, required: ["n"] },
          { properties: { n: { maximum: 12 } } },
        ],
      },
    ],
    [
      {
        type: "object",
        properties: { list: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 3, uniqueItems: true } },
        required: ["list"],
      },
    ],
    [
      {
        type: "object",
        properties: {
          pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false, minItems: 2 },
        },
        required: ["pair"],
      },
    ],
    [{ type: "object", minProperties: 2, properties: { only: { type: "string" } } }],
  ])("fill the harder keywords validly: %j", (schema) => {
    const value = generateValue(schema, { random: seededRandom(3) });
    expect(valid(schema, value), JSON.stringify(value)).toBe(true);
  });
});
