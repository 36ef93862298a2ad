import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkingSchema } from "../src/workflow/load/validate-shape.js";
import { parseWorkflowYaml } from "../src/workflow/load/parse-workflow-yaml.js";
import { LEAF_STEP_SCHEMAS, mapStepSchema, parallelStepSchema } from "../src/workflow/schema/step-schemas.js";

// The loader checks steps with zod's compiled parser once a schema is much used; these hold it to the runtime parser.

type Kind = keyof typeof LEAF_STEP_SCHEMAS;

const compiledSchemas = new Map<z.ZodType, z.ZodType>();

function sameAnswer(schema: z.ZodType, value: unknown): void {
  if (!compiledSchemas.has(schema)) compiledSchemas.set(schema, z.compile(schema));
  const runtime = schema.safeParse(value, { reportInput: true });
  const compiled = compiledSchemas.get(schema)!.safeParse(value, { reportInput: true });
  expect(compiled.success).toBe(runtime.success);
  if (runtime.success) expect(compiled.data).toEqual(runtime.data);
  else expect(compiled.error?.issues).toEqual(runtime.error.issues);
}

// Every step of the example workflows, containers and children alike, as the YAML gives them.
async function exampleSteps(): Promise<Array<Record<string, unknown>>> {
  const folder = path.resolve("workflows");
  const files = (await readdir(folder)).filter((name) => name.endsWith(".yaml"));
  const steps: Array<Record<string, unknown>> = [];
  const visit = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const step of list as Array<Record<string, unknown>>) {
      steps.push(step);
      visit(step.steps);
      visit(step.parallel);
    }
  };
  for (const file of files) {
    const { value } = parseWorkflowYaml(await readFile(path.join(folder, file), "utf8"), file);
    visit((value as { steps?: unknown }).steps);
  }
  return steps;
}

function schemaOf(step: Record<string, unknown>): z.ZodType {
  if ("map" in step) return mapStepSchema;
  if ("parallel" in step) return parallelStepSchema;
  return LEAF_STEP_SCHEMAS[step.uses as Kind];
}

describe("the compiled step schemas", () => {
  it("parse every step of the example workflows to what the runtime parser gives", async () => {
    const steps = await exampleSteps();
    expect(steps.length).toBeGreaterThan(10);
    for (const step of steps) sameAnswer(schemaOf(step), step);
  });

  it("give the runtime parser's answer and issues for chat steps with any mix of right and wrong fields", () => {
    const field = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string()),
    );
    const step = fc.record(
      {
        id: fc.oneof(fc.constantFrom("s1", "make-poster", "9bad", ""), field),
        uses: fc.constantFrom("chat", "image"),
        name: field,
        if: fc.oneof(fc.boolean(), fc.constant("${{ inputs.go }}"), field),
        needs: fc.oneof(fc.array(fc.constantFrom("a", "b-c", "1x")), field),
        timeout: fc.oneof(fc.constantFrom("30s", "2m", "soon", 5, -1), field),
        retry: fc.oneof(fc.record({ attempts: fc.integer({ min: -1, max: 30 }) }), field),
        with: fc.record(
          {
            prompt: field,
            model: field,
            temperature: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.constant("${{ inputs.t }}"), field),
            maxTokens: fc.oneof(fc.integer({ min: -5, max: 100 }), field),
            images: fc.oneof(fc.array(fc.string()), fc.constant("${{ inputs.photos }}"), field),
            stop: field,
            extra: field,
          },
          { requiredKeys: [] },
        ),
        unknown: field,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(step, (value) => sameAnswer(LEAF_STEP_SCHEMAS.chat, value)),
      { numRuns: 300 },
    );
  });

  it("are used only once a schema has checked 1,000 values, so a small file does not pay to compile", () => {
    const schema = z.strictObject({ id: z.string() });
    const first = checkingSchema(schema);
    for (let use = 2; use <= 1_000; use += 1) expect(checkingSchema(schema)).toBe(schema);
    const later = checkingSchema(schema);
    expect(first).toBe(schema);
    expect(later).not.toBe(schema);
    expect(checkingSchema(schema)).toBe(later);
    expect(later.safeParse({ id: "a" }).success).toBe(true);
  });
});
