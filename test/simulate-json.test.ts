import { Validator, type Schema } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { chat, user } from "./simulate-helpers.js";

const personSchema = {
  type: "object",
  properties: {
    name: { type: "string" },
    age: { type: "integer", minimum: 0, maximum: 130 },
    city: { type: "string" },
    hobbies: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
  },
  required: ["name", "age", "city", "hobbies"],
  additionalProperties: false,
};

const valid = (schema: object, value: unknown) =>
  new Validator(schema as Schema, "2020-12", false).validate(value).valid;

describe("simulated JSON replies", () => {
  it("gives a JSON object under json_object even with no schema in the prompt", async () => {
    const reply = await chat("beta-4o", [user("Tell me about owls, as JSON.")], {
      response_format: { type: "json_object" },
    });
    const value: unknown = JSON.parse(reply.content);
    expect(value).toBeTypeOf("object");
    expect(Array.isArray(value)).toBe(false);
    expect(JSON.stringify(value)).toMatch(/owls/);
  });

  it("follows a JSON Schema written in the prompt, filling fields from the request", async () => {
    const prompt = `Extract the person: Marie Curie, 66, lives in Warsaw. Respond with JSON matching this schema: ${JSON.stringify(personSchema)}`;
    const reply = await chat("alpha-sonnet-4-6", [user(prompt)], { response_format: { type: "json_object" } });
    const value = JSON.parse(reply.content) as Record<string, unknown>;
    expect(valid(personSchema, value)).toBe(true);
    expect(value).toMatchObject({ name: "Marie Curie", age: 66, city: "Warsaw" });
  });

  it("follows a schema given in the system message", async () => {
    const reply = await chat(
      "gamma-2.5-flash",
      [
        { role: "system", content: `Always answer with JSON matching: ${JSON.stringify(personSchema)}` },
        user("Who is a famous chemist?"),
      ],
      { response_format: { type: "json_object" } },
    );
    expect(valid(personSchema, JSON.parse(reply.content))).toBe(true);
  });

  it("copies the keys and value types of an example object", async () => {
    const reply = await chat(
      "beta-4o-mini",
      [user('Rate this movie. Reply as JSON like {"title": "Alien", "stars": 5, "recommended": true}')],
      {
        response_format: { type: "json_object" },
      },
    );
    const value = JSON.parse(reply.content) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(["recommended", "stars", "title"]);
    expect(typeof value.title).toBe("string");
    expect(Number.isInteger(value.stars)).toBe(true);
    expect(typeof value.recommended).toBe("boolean");
  });

  it("uses the keys a prompt lists", async () => {
    const reply = await chat("beta-4o", [user("Return JSON with keys name, age and tags for Alan Turing.")], {
      response_format: { type: "json_object" },
    });
    const value = JSON.parse(reply.content) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(["age", "name", "tags"]);
    expect(value.name).toBe("Alan Turing");
    expect(Array.isArray(value.tags)).toBe(true);
  });

  it("follows response_format json_schema exactly", async () => {
    const schema = {
      type: "object",
      properties: {
        answer: { type: "string" },
        confidence: { type: "number", minimum: 0, maximum: 1 },
        label: { enum: ["yes", "no"] },
      },
      required: ["answer", "confidence", "label"],
      additionalProperties: false,
    };
    const reply = await chat("beta-5-mini", [user("Is the Pacific the largest ocean? Answer yes or no.")], {
      response_format: { type: "json_schema", json_schema: { name: "verdict", strict: true, schema } },
    });
    const value = JSON.parse(reply.content) as Record<string, unknown>;
    expect(valid(schema, value)).toBe(true);
    expect(reply.reasoningTokens).toBeGreaterThan(0);
  });

  it("puts the computed result in a numeric result field", async () => {
    const schema = { type: "object", properties: { result: { type: "number" } }, required: ["result"] };
    const reply = await chat("beta-4o", [user("What is 6 * 7?")], {
      response_format: { type: "json_schema", json_schema: { name: "r", schema } },
    });
    expect(JSON.parse(reply.content)).toEqual({ result: 42 });
  });

  it("wraps a non-object schema under json_object, which promises an object", async () => {
    const schema = { type: "array", items: { type: "string" }, minItems: 3, maxItems: 3 };
    const reply = await chat(
      "beta-4o",
      [user(`Three taglines for a lantern. JSON schema: ${JSON.stringify(schema)}`)],
      { response_format: { type: "json_object" } },
    );
    const value = JSON.parse(reply.content) as { result: unknown };
    expect(valid(schema, value.result)).toBe(true);
  });

  it("answers with JSON when the prompt asks for it and shows a schema, even without response_format", async () => {
    const reply = await chat("alpha-sonnet-4-6", [
      user(`Give me a person as JSON matching ${JSON.stringify(personSchema)}`),
    ]);
    expect(valid(personSchema, JSON.parse(reply.content))).toBe(true);
  });

  it("returns truncated, unparsable JSON with finish_reason length when the limit is too small", async () => {
    const reply = await chat("beta-4o", [user(`Give me a person as JSON matching ${JSON.stringify(personSchema)}`)], {
      response_format: { type: "json_object" },
      max_tokens: 5,
    });
    expect(reply.finishReason).toBe("length");
    expect(() => JSON.parse(reply.content)).toThrow();
  });
});
