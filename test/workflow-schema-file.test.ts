import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { META_VALIDATOR_FILE_PATH, metaValidatorFileText } from "../src/workflow/load/meta-validator-code.js";
import { workflowSchemaFileText } from "../src/workflow/schema/workflow-json-schema.js";
import { SCHEMA_FILE_PATH } from "../src/workflow/schema/write-schema-file.js";

describe("workflow.schema.json", () => {
  it("is what the zod schema generates (run `npm run schema` after changing the schema)", async () => {
    expect(await readFile(SCHEMA_FILE_PATH, "utf8")).toBe(workflowSchemaFileText());
  });

  it("ships ajv's draft 2020-12 meta-schema validator as ajv generates it with the loader's options", async () => {
    expect(await readFile(META_VALIDATOR_FILE_PATH, "utf8")).toBe(metaValidatorFileText());
  });

  it("describes every step kind and the containers, recursively", () => {
    const schema = JSON.parse(workflowSchemaFileText()) as {
      $defs: Record<string, { anyOf?: Array<{ properties?: Record<string, { const?: string }> }> }>;
    };
    const variants = schema.$defs.step!.anyOf!;
    const kinds = variants.map(
      (variant) =>
        variant.properties?.uses?.const ??
        Object.keys(variant.properties ?? {}).find((key) => key === "map" || key === "parallel"),
    );
    expect(kinds).toEqual(["chat", "image", "music", "agent", "tool", "approval", "map", "parallel"]);
    expect(JSON.stringify(variants[6])).toContain('"$ref":"#/$defs/step"');
  });
});
