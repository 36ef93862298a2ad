import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatYuan } from "../src/cost/format-summary-table.js";
import type { TestRun } from "./workflow-harness.js";
import { runText, tempDir, useGateway } from "./workflow-harness.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const IN_CI = process.env.CI === "true" || process.env.CI === "1";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && !IN_CI) console.warn(`Skipping the report browser tests: no Chromium at ${CHROMIUM}. Install Debian's chromium (.ci/run does) or set CHROMIUM_PATH.`);

const gateway = useGateway({ music: { completeAfterMs: 20 } });

const INJECTION = "<script>document.title = 1</script><b id=injected>bold</b>";

const LAUNCH_KIT = `version: 1
name: launch-kit
inputs:
  product: { type: string }
steps:
  - id: poster
    uses: image
    with: { model: gamma-2.5-flash-image, prompt: "A poster of a \${{ inputs.product }} at dusk" }
  - id: jingle
    uses: music
    with: { prompt: "Upbeat jingle for \${{ inputs.product }}", instrumental: true }
  - id: tagline
    uses: chat
    with: { model: alpha-sonnet-4-6, maxTokens: 100, prompt: 'Reply with exactly "${INJECTION}"' }
  - id: blurb
    uses: chat
    with: { model: beta-4o-mini, maxTokens: 60, prompt: "One sentence about the \${{ inputs.product }}" }
`;

// When CI is set a missing Chromium fails the suite (launch throws) instead of skipping it.
describe.skipIf(!HAVE_CHROMIUM && !IN_CI)("report.html in headless Chromium", () => {
  let context: BrowserContext;
  let run: TestRun;

  beforeAll(async () => {
    const [launched, finished] = await Promise.all([
      tempDir("svc-flow-chromium-").then((userDataDir) =>
        chromium.launchPersistentContext(userDataDir, {
          executablePath: CHROMIUM,
          args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        }),
      ),
      runText(gateway.current, LAUNCH_KIT, { inputs: { product: "paper lantern" } }),
    ]);
    context = launched;
    run = finished;
  }, 60_000);
  afterAll(async () => {
    await context?.close();
  });

  async function openReport() {
    const page = await context.newPage();
    await page.goto(pathToFileURL(path.join(run.result.runDir, "report.html")).href, { waitUntil: "load" });
    return page;
  }

  it("is written to the run directory by default", async () => {
    expect(run.result.status).toBe("done");
    const html = await readFile(path.join(run.result.runDir, "report.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("launch-kit");
  });

  it("shows every generated image, loaded from artifacts/", async () => {
    const page = await openReport();
    const images = (await page.evaluate(`[...document.images].map((image) => ({ src: image.getAttribute("src"), width: image.naturalWidth, complete: image.complete }))`)) as Array<{ src: string; width: number; complete: boolean }>;
    expect(images.length).toBeGreaterThanOrEqual(1);
    for (const image of images) {
      expect(image.src).toMatch(/^artifacts\/[0-9a-f]{64}\.(png|jpg|webp|gif)$/);
      expect(image, `image ${image.src} did not load`).toMatchObject({ complete: true, width: expect.any(Number) });
      expect(image.width).toBeGreaterThan(0);
    }
    await page.screenshot({ path: "/tmp/report.png", fullPage: true });
    await page.close();
  });

  it("has a playable audio player for the music clip", async () => {
    const page = await openReport();
    const audio = (await page.evaluate(`(async () => {
      const element = document.querySelector("audio");
      if (element === null) return null;
      if (element.readyState < 1) await new Promise((resolve) => { element.addEventListener("loadedmetadata", resolve, { once: true }); element.addEventListener("error", resolve, { once: true }); setTimeout(resolve, 5000); });
      return { src: element.getAttribute("src"), readyState: element.readyState, duration: element.duration, error: element.error && element.error.code };
    })()`)) as { src: string; readyState: number; duration: number; error: number | null } | null;
    expect(audio).not.toBeNull();
    expect(audio!.src).toMatch(/^artifacts\/[0-9a-f]{64}\.(wav|mp3)$/);
    expect(audio!.error).toBeNull();
    expect(audio!.readyState).toBeGreaterThanOrEqual(1);
    expect(audio!.duration).toBeGreaterThan(0);
    await page.close();
  });

  it("has the cost table by model with the run's total, and shows an unpriced model as unpriced, not ¥0", async () => {
    const page = await openReport();
    const table = (await page.evaluate(`(() => {
      const table = document.querySelector("#cost-table");
      if (table === null) return null;
      const rows = [...table.querySelectorAll("tbody tr")].map((row) => [...row.children].map((cell) => cell.textContent.trim()));
      return { rows, total: table.querySelector("#cost-total").textContent.trim() };
    })()`)) as { rows: string[][]; total: string } | null;
    expect(table).not.toBeNull();
    const cost = run.result.cost;
    expect(cost.totalYuan).toBeGreaterThan(0);
    expect(cost.complete).toBe(false);
    expect(table!.total).toBe(`${formatYuan(cost.totalYuan)} + unpriced: ${cost.unpriced.calls} call${cost.unpriced.calls === 1 ? "" : "s"}, ${cost.unpriced.promptTokens + cost.unpriced.completionTokens} tokens`);
    const byModel = new Map(table!.rows.map((cells) => [cells[0], cells.at(-1)]));
    expect([...byModel.keys()].sort()).toEqual(Object.keys(cost.byModel).sort());
    expect(byModel.get("beta-4o-mini")).toBe("unpriced");
    expect(byModel.get("gamma-2.5-flash-image")).toBe(formatYuan(cost.byModel["gamma-2.5-flash-image"]!.yuan!));
    await page.close();
  });

  it("shows a model reply containing <script> as text, never as markup", async () => {
    expect(run.result.outputs?.tagline).toMatchObject({ text: INJECTION });
    const page = await openReport();
    const seen = (await page.evaluate(`({
      title: document.title,
      injected: document.querySelector("#injected") !== null,
      scripts: document.scripts.length,
      shown: [...document.querySelectorAll("pre.text")].some((pre) => pre.textContent === ${JSON.stringify(INJECTION)}),
    })`)) as { title: string; injected: boolean; scripts: number; shown: boolean };
    expect(seen).toEqual({ title: "launch-kit: done", injected: false, scripts: 0, shown: true });
    await page.close();
  });

  it("lists every step with its kind, model, status and cost", async () => {
    const page = await openReport();
    const rows = (await page.evaluate(`[...document.querySelectorAll("#step-table tbody tr")].map((row) => [...row.children].map((cell) => cell.textContent.trim()))`)) as string[][];
    expect(rows.map((cells) => cells[0]).sort()).toEqual(["blurb", "jingle", "poster", "tagline"]);
    const byStep = new Map(rows.map((cells) => [cells[0], cells]));
    expect(byStep.get("poster")!.slice(1, 4)).toEqual(["image", "gamma-2.5-flash-image", "done"]);
    expect(byStep.get("blurb")![7]).toBe("unpriced");
    expect(byStep.get("jingle")![7]).toBe(formatYuan(run.result.cost.byTag.step!.jingle!.yuan!));
    await page.close();
  });
});
