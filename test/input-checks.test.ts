// All input is checked before the first call, at validate and at the start of run: media are what
// they claim by their bytes (data URIs too), cron parses, alias bombs and huge files are refused
// with exit 2 and no stack, and a missing media input makes no run directory.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseWorkflow } from "../src/workflow/load/load-workflow.js";
import { headerSafe } from "../src/workflow/run/idempotency.js";
import { readJournal } from "../src/workflow/run/run-journal.js";
import { resumeWorkflow } from "../src/workflow/run/resume-workflow.js";
import { runWorkflow } from "../src/workflow/run/run-workflow.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { bandsRaster, pngDataUri, silentMp3 } from "./media-builders.js";
import { gatewayOptions, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();
const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const MEDIA = path.join(import.meta.dirname, "fixtures", "media");
const PNG = pngDataUri(bandsRaster(4, 4, [{ rgb: [200, 0, 0], share: 1 }]));

function visionFlow(image: string): string {
  return `version: 1
inputs:
  photo: { type: string, optional: true }
steps:
  - id: look
    uses: chat
    with: { model: beta-4o, prompt: "Describe it.", images: [${JSON.stringify(image)}] }
`;
}

async function validate(text: string, files: Record<string, Buffer | string> = {}) {
  const folder = await tempDir();
  await writeFile(path.join(folder, "flow.yaml"), text);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder, name), content);
  const { code, stdout, stderr } = await runCli(["validate", "flow.yaml"], {
    env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
    cwd: folder,
  });
  return { code, output: stdout.text + stderr.text };
}

async function runRefused(text: string, args: readonly string[] = []) {
  const folder = await tempDir();
  await writeFile(path.join(folder, "flow.yaml"), text);
  const billedBefore = gateway.current.stats().billedYuan;
  const { code, stdout, stderr } = await runCli(["run", "flow.yaml", "--out", "run", ...args], {
    env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
    cwd: folder,
  });
  return {
    code,
    output: stdout.text + stderr.text,
    madeRunDir: existsSync(path.join(folder, "run")),
    billed: gateway.current.stats().billedYuan - billedBefore,
  };
}

const UNPRICED_UNDER_BUDGET = `version: 1
budget: { maxYuan: 5 }
steps:
  - id: ask
    uses: chat
    with: { model: beta-4o, prompt: "Hello." }
  - id: priced
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Hello." }
`;

const INVALID_SCHEMA = `version: 1
steps:
  - id: ask
    uses: chat
    with:
      model: alpha-sonnet-4-6
      prompt: "Name a colour."
      schema:
        type: object
        properties:
          colour: { type: strin }
`;

describe("input checks before the first call", () => {
  it.each([
    { what: "a text data URI", image: "data:text/plain;base64,aGVsbG8=", says: "not an image" },
    {
      what: "an SVG data URI",
      image: `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString("base64")}`,
      says: "SVG",
    },
    {
      what: "a PNG data URI with a damaged header",
      image: PNG.slice(0, 40) + "AAAA" + PNG.slice(44),
      says: "damaged header",
    },
    { what: "a missing file", image: "nowhere.png", says: "There is no file" },
    { what: "a text file named .png", image: "fake.png", says: "not an image" },
  ])("refuses $what as an image at validate, exit 2", async ({ image, says }) => {
    const result = await validate(visionFlow(image), { "fake.png": "just text" });
    expect(result.output).toContain(says);
    expect(result.output).toMatch(/flow\.yaml:\d+:\d+/);
    expect(result.code).toBe(2);
  });

  it.each(["gray1.png", "progressive.jpg", "tiny.gif", "tiny.webp"])("accepts the real image %s", async (name) => {
    const folder = await tempDir();
    await copyFile(path.join(MEDIA, name), path.join(folder, name));
    await writeFile(path.join(folder, "flow.yaml"), visionFlow(name));
    const { code } = await runCli(["validate", "flow.yaml"], {
      env: gatewayEnv(gateway.current.baseURL, "sk-local-demo"),
      cwd: folder,
    });
    expect(code).toBe(0);
  });

  it("refuses an image file given as audio and accepts an mp3", async () => {
    const flow = (file: string) =>
      `version: 1\nsteps:\n  - id: hear\n    uses: chat\n    with: { model: gamma-2.5-flash, prompt: "Transcribe.", audio: [${file}] }\n`;
    expect(
      (await validate(flow("song.mp3"), { "song.mp3": await readFile(path.join(MEDIA, "gray1.png")) })).output,
    ).toContain("not audio");
    expect((await validate(flow("song.mp3"), { "song.mp3": silentMp3({ frames: 4 }) })).code).toBe(0);
  });

  it("refuses a cron that does not parse at validate", async () => {
    const result = await validate(
      `version: 1\nschedule: { cron: "61 * * * *" }\nsteps:\n  - id: sum\n    uses: tool\n    with: { tool: calculator, input: { expression: "1 + 1" } }\n`,
    );
    expect(result.output).toMatch(/flow\.yaml:2:\d+ schedule\.cron: .*not a cron expression/);
    expect(result.code).toBe(2);
  });

  it("refuses a YAML alias bomb with exit 2 and no stack trace", async () => {
    let text =
      'version: 1\nsteps:\n  - id: sum\n    uses: tool\n    with: { tool: calculator, input: { expression: "1 + 1" } }\na0: &a0 ["x","x","x","x","x","x","x","x","x"]\n';
    for (let level = 1; level < 9; level++)
      text += `a${level}: &a${level} [${Array(9)
        .fill(`*a${level - 1}`)
        .join(",")}]\n`;
    const result = await validate(text);
    expect(result.output).toContain("aliases");
    expect(result.output).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(2);
  });

  it("derives an Idempotency-Key base that fits the header from any step key", () => {
    const long = `run-1:${"a-very-long-step-id-".repeat(20)}[3].child`;
    expect(headerSafe(long)).toMatch(/^h-[0-9a-f]{64}$/);
    expect(headerSafe(long)).toBe(headerSafe(long));
    expect(headerSafe("run-1:steps.é")).toMatch(/^h-/);
    expect(headerSafe("run-1:short")).toBe("run-1:short");
  });

  it("exits 2 for a missing media input in the real CLI, with no run directory and nothing billed", {
    timeout: 60_000,
  }, async () => {
    const folder = await tempDir();
    await writeFile(path.join(folder, "flow.yaml"), visionFlow("${{ inputs.photo }}"));
    const billedBefore = gateway.current.stats().billedYuan;
    const child = spawn(process.execPath, [BIN, "run", "flow.yaml", "--input", "photo=missing.png", "--out", "run"], {
      cwd: folder,
      env: { ...process.env, ...gatewayEnv(gateway.current.baseURL, "sk-local-demo") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [child.stdout, child.stderr])
      stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(output).toContain('Input "photo": There is no file');
    expect(code).toBe(2);
    expect(existsSync(path.join(folder, "run"))).toBe(false);
    expect(gateway.current.stats().billedYuan).toBe(billedBefore);
  });

  it("refuses a budgeted workflow calling a model without a published price at validate, naming step, model and fix", async () => {
    const result = await validate(UNPRICED_UNDER_BUDGET);
    expect(result.output).toMatch(
      /flow\.yaml:6:\d+ steps\[0\]\.with\.model: Step "ask" may call beta-4o, which has no published price/,
    );
    expect(result.output).toContain("--prices FILE");
    expect(result.output).toContain("budget.allowUnpriced: true");
    expect(result.output).not.toContain('Step "priced"');
    expect(result.code).toBe(2);
  });

  it("accepts unpriced models under a budget with allowUnpriced, --allow-unpriced or a prices file", async () => {
    const allowed = UNPRICED_UNDER_BUDGET.replace("maxYuan: 5 }", "maxYuan: 5, allowUnpriced: true }");
    expect((await validate(allowed)).code).toBe(0);
    const folder = await tempDir();
    await writeFile(path.join(folder, "flow.yaml"), UNPRICED_UNDER_BUDGET);
    await writeFile(path.join(folder, "prices.yaml"), "chat:\n  beta-4o: { input: 0.01, output: 0.02 }\n");
    const env = gatewayEnv(gateway.current.baseURL, "sk-local-demo");
    expect((await runCli(["validate", "flow.yaml", "--allow-unpriced"], { env, cwd: folder })).code).toBe(0);
    expect((await runCli(["validate", "flow.yaml", "--prices", "prices.yaml"], { env, cwd: folder })).code).toBe(0);
  });

  it("refuses a chat schema that is not a valid JSON Schema at validate, at the line of the bad keyword", async () => {
    const result = await validate(INVALID_SCHEMA);
    expect(result.output).toMatch(
      /flow\.yaml:11:\d+ steps\[0\]\.with\.schema\.properties\.colour\.type: Not a valid JSON Schema: "strin" must be one of array, boolean/,
    );
    expect(result.code).toBe(2);
  });

  it.each([
    { what: "unpriced models under a budget", text: UNPRICED_UNDER_BUDGET, says: "has no published price" },
    { what: "an invalid JSON Schema", text: INVALID_SCHEMA, says: "Not a valid JSON Schema" },
    {
      what: "a cron that does not parse",
      text: `version: 1\nschedule: { cron: "61 * * * *" }\nsteps:\n  - id: sum\n    uses: tool\n    with: { tool: calculator, input: { expression: "1 + 1" } }\n`,
      says: "not a cron expression",
    },
    {
      what: "a text file given as an image",
      text: visionFlow("data:text/plain;base64,aGVsbG8="),
      says: "not an image",
    },
  ])("refuses $what at the start of run: exit 2, no run directory, nothing billed", async ({ text, says }) => {
    const result = await runRefused(text);
    expect(result.output).toContain(says);
    expect(result.output).toMatch(/flow\.yaml:\d+:\d+/);
    expect(result.code).toBe(2);
    expect(result.madeRunDir).toBe(false);
    expect(result.billed).toBe(0);
  });

  it("refuses unpriced models under a budget given only by run --budget, before the run directory is made", async () => {
    const result = await runRefused(UNPRICED_UNDER_BUDGET.replace("budget: { maxYuan: 5 }\n", ""), ["--budget", "3"]);
    expect(result.output).toContain("the budget of ¥3 (--budget) cannot bound it");
    expect(result.code).toBe(2);
    expect(result.madeRunDir).toBe(false);
    expect(result.billed).toBe(0);
  });

  it("resume checks unpriced models against the budget the run was started with, before any call", async () => {
    const text = `version: 1
steps:
  - id: first
    uses: tool
    with: { tool: calculator, input: { expression: "6 * 7" } }
  - id: ask
    uses: chat
    with: { model: beta-4o, prompt: "Hello \${{ steps.first.output }}." }
`;
    const workflow = parseWorkflow(text, { fileName: "flow.yaml" });
    const controller = new AbortController();
    const outDir = path.join(await tempDir(), "run");
    const stopped = await runWorkflow(
      workflow,
      gatewayOptions(gateway.current, {
        outDir,
        budgetYuan: 3,
        allowUnpriced: true,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "step-started" && event.id === "ask") controller.abort(new Error("Received SIGINT"));
        },
      }),
    );
    expect(stopped).toMatchObject({ status: "stopped", reason: "interrupted" });
    const billedBefore = gateway.current.stats().billedYuan;

    await expect(resumeWorkflow(outDir, gatewayOptions(gateway.current))).rejects.toThrow(
      /Step "ask" may call beta-4o, which has no published price, so the budget of ¥3 \(--budget\) cannot bound it/,
    );
    const { records } = await readJournal(path.join(outDir, "journal.jsonl"));
    expect(records.filter((record) => record.type === "run-resumed")).toHaveLength(0);
    expect(gateway.current.stats().billedYuan).toBe(billedBefore);

    const resumed = await resumeWorkflow(outDir, gatewayOptions(gateway.current, { allowUnpriced: true }));
    expect(resumed.status).toBe("done");
  });

  it("runWorkflow refuses unpriced models under a budget it is given, before making the run directory", async () => {
    const workflow = parseWorkflow(UNPRICED_UNDER_BUDGET.replace("budget: { maxYuan: 5 }\n", ""), {
      fileName: "flow.yaml",
    });
    const outDir = path.join(await tempDir(), "run");
    await expect(runWorkflow(workflow, gatewayOptions(gateway.current, { outDir, budgetYuan: 3 }))).rejects.toThrow(
      /Step "ask" may call beta-4o, which has no published price/,
    );
    expect(existsSync(outDir)).toBe(false);
  });
});
