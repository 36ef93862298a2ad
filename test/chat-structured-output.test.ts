import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { ParameterError, StructuredOutputError } from "../src/errors.js";
import { useRecordedHarness } from "./chat-harness.js";

const { harness, proxy, lastBody } = useRecordedHarness();
const person = z.object({ name: z.string(), age: z.number().int().min(0).max(130), tags: z.array(z.string()).max(3) });

describe("withStructuredOutput", () => {
  it("returns an object validated against a zod 4 schema, asked for as a forced tool call", async () => {
    const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
    const result = await model
      .withStructuredOutput(person, { name: "person" })
      .invoke("Make up a person named Ada who is 36.");
    expect(person.parse(result)).toEqual(result);
    expect(result.name).toBe("Ada");
    expect(lastBody().tool_choice).toEqual({ type: "function", function: { name: "person" } });
  });

  it("validates against a zod 3 schema", async () => {
    const schema = z3.object({ city: z3.string(), population: z3.number().int().positive() });
    const result = await harness()
      .model({ model: "alpha-sonnet-4-6" })
      .withStructuredOutput(schema)
      .invoke("Describe Lisbon.");
    expect(schema.safeParse(result).success).toBe(true);
  });

  it("validates against a JSON Schema, including a non-object one", async () => {
    const taglines = { type: "array", items: { type: "string" }, maxItems: 3, minItems: 1 };
    const result = await harness()
      .model({ model: "beta-4o", baseURL: proxy().baseURL })
      .withStructuredOutput(taglines)
      .invoke("Three taglines for a solar lantern.");
    expect(Array.isArray(result)).toBe(true);
    expect((result as unknown as string[]).length).toBeLessThanOrEqual(3);
    const wire = (lastBody().tools as Array<{ function: { parameters: unknown } }>)[0]?.function.parameters;
    expect(wire).toEqual({ type: "object", properties: { value: taglines }, required: ["value"] });
  });

  it("throws a clear StructuredOutputError when the reply does not conform", async () => {
    // A refinement JSON Schema cannot express: the model cannot know it, the check must catch it.
    const schema = z.object({ code: z.string().refine((code) => code === "XYZ-123", "must be the code XYZ-123") });
    const failure = await harness()
      .model({ model: "beta-4o" })
      .withStructuredOutput(schema, { name: "lookup" })
      .invoke("Give me a code.")
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StructuredOutputError);
    expect((failure as Error).message).toMatch(
      /does not match the schema "lookup": at \/code: must be the code XYZ-123/,
    );
    expect((failure as StructuredOutputError).raw).toMatch(/"code"/);
  });

  it("returns raw and parsed with includeRaw, and the error instead of throwing", async () => {
    const model = harness().model({ model: "beta-4o" });
    const ok = await model
      .withStructuredOutput(person, { includeRaw: true })
      .invoke("Make up a person named Bo who is 20.");
    expect(ok.parsed?.name).toBe("Bo");
    expect((ok.raw.response_metadata as Record<string, unknown>).model).toBe("beta-4o");
    const schema = z.object({ code: z.string().refine(() => false, "never valid") });
    const bad = await model.withStructuredOutput(schema, { includeRaw: true }).invoke("Give me a code.");
    expect(bad.parsed).toBeNull();
    expect((bad as { parsingError?: unknown }).parsingError).toBeInstanceOf(StructuredOutputError);
  });

  it("supports JSON mode and JSON Schema response formats", async () => {
    const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
    const json = await model
      .withStructuredOutput(person, { method: "jsonSchema", name: "person" })
      .invoke("Make up a person named Cy who is 50, as JSON.");
    expect(person.safeParse(json).success).toBe(true);
    expect(lastBody().response_format).toMatchObject({ type: "json_schema", json_schema: { name: "person" } });
    // JSON mode carries no schema: the prompt has to describe the shape.
    const named = z.object({ name: z.string(), age: z.number() });
    const parsed = await model
      .withStructuredOutput(named, { method: "jsonMode" })
      .invoke("Return JSON with keys name and age for a person called Di who is 41.");
    expect(named.safeParse(parsed).success).toBe(true);
    expect(lastBody().response_format).toEqual({ type: "json_object" });
  });

  it("accepts a Standard Schema that gives its own JSON Schema, and validates with it", async () => {
    const standard = {
      "~standard": {
        version: 1,
        vendor: "hand-made",
        jsonSchema: {
          input: () => ({
            type: "object",
            properties: { count: { type: "integer", minimum: 1, maximum: 9 } },
            required: ["count"],
          }),
        },
        validate: (value: unknown) =>
          typeof (value as { count?: unknown }).count === "number"
            ? { value }
            : { issues: [{ message: "count must be a number", path: [{ key: "count" }] }] },
      },
    };
    const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
    const result = await model
      .withStructuredOutput<{ count: number }>(standard)
      .invoke("How many planets have rings? Give a count.");
    expect(typeof result.count).toBe("number");
    expect((lastBody().tools as Array<{ function: { parameters: unknown } }>)[0]?.function.parameters).toMatchObject({
      required: ["count"],
    });
  });

  it("refuses structured output on an image model, which cannot call tools", () => {
    expect(() => harness().model({ model: "gamma-2.5-flash-image" }).withStructuredOutput(person)).toThrow(
      ParameterError,
    );
  });

  it.each(["jsonMode", "jsonSchema"] as const)(
    "refuses %s structured output on an image model before sending anything",
    (method) => {
      const sent = proxy().requests.length;
      const model = harness().model({ model: "gamma-2.5-flash-image", baseURL: proxy().baseURL });
      expect(() => model.withStructuredOutput(person, { method })).toThrow(/generates images/);
      expect(proxy().requests.length).toBe(sent);
    },
  );

  it("refuses a structured output name the models would reject, before sending", () => {
    const model = harness().model({ model: "beta-4o", baseURL: proxy().baseURL });
    expect(() => model.withStructuredOutput(person, { name: "a person" })).toThrow(
      /Rename it, for example to "a_person"/,
    );
  });
});
