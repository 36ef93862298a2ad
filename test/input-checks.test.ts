// All input is checked before the first call, at validate and at the start of run: media are what
// they claim by their bytes (data URIs too), cron parses, alias bombs and huge files are refused
// with exit 2 and no stack, and a missing media input makes no run directory.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { headerSafe } from "../src/workflow/run/idempotency.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { bandsRaster, pngDataUri, silentMp3 } from "./media-builders.js";
import { tempDir, useGateway } from "./workflow-harness.js";

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
});
