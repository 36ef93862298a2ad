import { access } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseWorkflow, runWorkflow } from "../src/workflow/index.js";
import { tempDir } from "./workflow-harness.js";

const WORKFLOW = parseWorkflow(
  "version: 1\nname: hello\nsteps:\n  - id: hi\n    uses: chat\n    with: { model: beta-4o-mini, prompt: Hi }\n",
);

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe("runWorkflow from svc-flow/workflow (no local gateway of its own)", () => {
  it.each([
    ["no gateway configured", {}],
    ["SVC_API_KEY without SVC_BASE_URL", { SVC_API_KEY: "sk-half-set" }],
  ])("refuses %s with missing_base_url before the run directory is made", async (_case, env) => {
    const outDir = path.join(await tempDir(), "run");
    await expect(runWorkflow(WORKFLOW, { outDir, env, notice: () => undefined })).rejects.toMatchObject({
      code: "missing_base_url",
    });
    expect(await exists(outDir)).toBe(false);
  });

  it("refuses SVC_BASE_URL without a key with missing_api_key before the run directory is made", async () => {
    const outDir = path.join(await tempDir(), "run");
    const env = { SVC_BASE_URL: "http://127.0.0.1:9/v1" };
    await expect(runWorkflow(WORKFLOW, { outDir, env, notice: () => undefined })).rejects.toMatchObject({
      code: "missing_api_key",
    });
    expect(await exists(outDir)).toBe(false);
  });
});
