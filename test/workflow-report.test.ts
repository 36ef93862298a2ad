import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatYuan } from "../src/cost/format-summary-table.js";
import type { CostSummary } from "../src/cost/summarize-entries.js";
import type { TestRun } from "./workflow-harness.js";
import { runText, tempDir, useGateway } from "./workflow-harness.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const IN_CI = process.env.CI === "true" || process.env.CI === "1";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && !IN_CI)
  console.warn(
    `Skipping the report browser tests: no Chromium at ${CHROMIUM}. Install Debian's chromium (.ci/run does) or set CHROMIUM_PATH.`,
  );
/** Where the screenshots go, to be looked at: the page as a person sees it. */
const SHOTS = path.join(tmpdir(), "svc-flow-report-screenshots");

const gateway = useGateway({ music: { completeAfterMs: 20 } });

const INJECTION = "<script>document.title = 1</script><b id=injected>bold</b>";
const MARKDOWN =
  "## Launch plan\\n\\n**Price** it at *30* yuan, see [the brief](javascript:alert(1)).\\n\\n- one\\n- two <img src=x onerror=alert(1)>";

// Two map items with the same prompt make equal images: two artifacts' worth of steps, one file.
const LAUNCH_KIT = `version: 1
name: launch-kit
description: A launch kit with a photo, posters, a jingle and copy.
inputs:
  product: { type: string }
  photo: { type: string }
steps:
  - id: poster
    uses: image
    with: { model: gamma-2.5-flash-image, prompt: "A poster of a \${{ inputs.product }} at dusk" }
  - id: variants
    map: ["same", "same"]
    as: variant
    steps:
      - id: art
        uses: image
        with: { model: gamma-2.5-flash-image, prompt: "A \${{ variant }} lantern" }
  - id: jingle
    uses: music
    with: { prompt: "Upbeat jingle for \${{ inputs.product }}", instrumental: true }
  - id: tagline
    uses: chat
    with: { model: alpha-sonnet-4-6, maxTokens: 100, prompt: 'Reply with exactly "${INJECTION}"' }
  - id: plan
    uses: chat
    with: { model: alpha-sonnet-4-6, maxTokens: 200, prompt: "Reply with exactly \\"${MARKDOWN}\\"" }
  - id: blurb
    uses: chat
    with: { model: beta-4o-mini, maxTokens: 60, prompt: "One sentence about the \${{ inputs.product }}" }
outputs:
  poster: \${{ steps.poster.output }}
  variants: \${{ steps.variants.output }}
  plan: \${{ steps.plan.output.text }}
`;

const ROWS = 105;
const BATCH = `version: 1
name: blurbs
defaults: { model: alpha-sonnet-4-6, maxTokens: 30 }
concurrency: 16
inputs:
  product: { type: items }
  tone: { type: string, default: "warm" }
steps:
  - id: blurb
    uses: chat
    with: { prompt: "One \${{ inputs.tone }} line for \${{ inputs.product.title }} (SKU \${{ inputs.product.sku }})." }
outputs:
  sku: \${{ inputs.product.sku }}
  blurb: \${{ steps.blurb.output.text }}
`;

// When CI is set a missing Chromium fails the suite (launch throws) instead of skipping it.
describe.skipIf(!HAVE_CHROMIUM && !IN_CI)("report.html in headless Chromium", () => {
  let context: BrowserContext;
  let run: TestRun;
  let batch: TestRun;

  beforeAll(async () => {
    const folder = await tempDir("svc-flow-report-");
    await writeFile(
      path.join(folder, "lantern.png"),
      await readFile(path.join(import.meta.dirname, "..", "workflows", "media", "lantern.png")),
    );
    const rows = Array.from({ length: ROWS }, (_, index) =>
      JSON.stringify({ sku: `SL-${100 + index}`, title: `Lantern ${index + 1}` }),
    );
    await writeFile(path.join(folder, "rows.jsonl"), `${rows.join("\n")}\n`);
    await mkdir(SHOTS, { recursive: true });
    const [launched, finished, batched] = await Promise.all([
      tempDir("svc-flow-chromium-").then((userDataDir) =>
        chromium.launchPersistentContext(userDataDir, {
          executablePath: CHROMIUM,
          viewport: { width: 1200, height: 900 },
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        }),
      ),
      runText(gateway.current, LAUNCH_KIT, {
        inputs: { product: "paper lantern", photo: "lantern.png" },
        baseDir: folder,
      }),
      runText(gateway.current, BATCH, { inputs: { product: "rows.jsonl" }, baseDir: folder }),
    ]);
    context = launched;
    run = finished;
    batch = batched;
  }, 120_000);
  afterAll(async () => {
    await context?.close();
  });

  async function open(runDir: string, file = "report.html"): Promise<Page> {
    const page = await context.newPage();
    await page.goto(pathToFileURL(path.join(runDir, file)).href, { waitUntil: "load" });
    return page;
  }

  it("is written to the run directory by default", async () => {
    expect(run.result.status).toBe("done");
    const html = await readFile(path.join(run.result.runDir, "report.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("launch-kit");
  });

  it("shows each step's image once, as a captioned thumbnail that opens the full-size file", async () => {
    const page = await open(run.result.runDir);
    await page.screenshot({ path: path.join(SHOTS, "launch-kit.png"), fullPage: true });
    const tiles =
      (await page.evaluate(`[...document.querySelectorAll("figure.tile")].filter((tile) => tile.querySelector("img")).map((tile) => {
      const image = tile.querySelector("img");
      const caption = tile.querySelector("figcaption");
      return { src: image.getAttribute("src"), href: tile.querySelector("a").getAttribute("href"), width: image.naturalWidth, caption: [caption.querySelector("strong").textContent, caption.querySelector(".detail")?.textContent].filter(Boolean).join(" · ") };
    })`)) as Array<{ src: string; href: string; width: number; caption: string }>;
    const images = (await page.evaluate(`document.images.length`)) as number;
    // The product photo, the poster, and one tile per map item although both items made the same file.
    expect(images).toBe(4);
    expect(tiles.map((tile) => tile.caption)).toEqual([
      "photo · lantern.png",
      "poster",
      "art · variants[0]: same",
      "art · variants[1]: same",
    ]);
    expect(tiles[2]!.src).toBe(tiles[3]!.src);
    for (const tile of tiles) {
      expect(tile.src).toMatch(/^artifacts\/[0-9a-f]{64}\.png$/);
      expect(tile.href).toBe(tile.src);
      expect(tile.width, `image ${tile.src} did not load`).toBeGreaterThan(0);
    }
    await page.close();
  });

  it("links the run's outputs to the images instead of showing them again, each map item to its own", async () => {
    const page = await open(run.result.runDir);
    const links = (await page.evaluate(
      `[...document.querySelectorAll("#outputs a.chip")].map((chip) => chip.getAttribute("href"))`,
    )) as string[];
    const targets = (await page.evaluate(
      `[...document.querySelectorAll("figure.tile")].map((tile) => tile.id)`,
    )) as string[];
    expect(links).toHaveLength(3);
    expect(new Set(links).size).toBe(3);
    for (const link of links) expect(targets).toContain(link.slice(1));
    await page.close();
  });

  it("has a playable audio player for the music clip, captioned with its step", async () => {
    const page = await open(run.result.runDir);
    const audio = (await page.evaluate(`(async () => {
      const element = document.querySelector("figure.clip audio");
      if (element === null) return null;
      if (element.readyState < 1) await new Promise((resolve) => { element.addEventListener("loadedmetadata", resolve, { once: true }); element.addEventListener("error", resolve, { once: true }); setTimeout(resolve, 5000); });
      return { src: element.getAttribute("src"), readyState: element.readyState, duration: element.duration, error: element.error && element.error.code, caption: element.closest("figure").querySelector("figcaption").textContent };
    })()`)) as { src: string; readyState: number; duration: number; error: number | null; caption: string } | null;
    expect(audio).not.toBeNull();
    expect(audio!.src).toMatch(/^artifacts\/[0-9a-f]{64}\.(wav|mp3)$/);
    expect(audio!.caption).toMatch(/^jingle/);
    expect(audio!.error).toBeNull();
    expect(audio!.readyState).toBeGreaterThanOrEqual(1);
    expect(audio!.duration).toBeGreaterThan(0);
    await page.close();
  });

  it("renders a model's Markdown as elements, with its HTML as text and no script link", async () => {
    const page = await open(run.result.runDir);
    const plan = (await page.evaluate(`(() => {
      const section = document.querySelector("#step-plan .markdown");
      return {
        heading: section.querySelector("h2")?.textContent,
        strong: section.querySelector("strong")?.textContent,
        items: [...section.querySelectorAll("li")].map((item) => item.textContent),
        links: [...section.querySelectorAll("a")].map((link) => link.getAttribute("href")),
        images: section.querySelectorAll("img").length,
      };
    })()`)) as { heading: string; strong: string; items: string[]; links: Array<string | null>; images: number };
    expect(plan.heading).toBe("Launch plan");
    expect(plan.strong).toBe("Price");
    expect(plan.items).toEqual(["one", "two <img src=x onerror=alert(1)>"]);
    expect(plan.links.filter((href) => href !== null && /^javascript:/i.test(href))).toEqual([]);
    expect(plan.images).toBe(0);
    await page.close();
  });

  it("shows a model reply containing <script> as text, never as markup", async () => {
    expect(run.result.outputs).toBeDefined();
    const page = await open(run.result.runDir);
    const seen = (await page.evaluate(`({
      title: document.title,
      injected: document.querySelector("#injected") !== null,
      scripts: document.scripts.length,
      shown: document.querySelector("#step-tagline .markdown").textContent.includes(${JSON.stringify(INJECTION)}),
    })`)) as { title: string; injected: boolean; scripts: number; shown: boolean };
    expect(seen).toEqual({ title: "launch-kit: done", injected: false, scripts: 0, shown: true });
    await page.close();
  });

  it("lists the steps in the file's order, map items under their map", async () => {
    const page = await open(run.result.runDir);
    const rows = (await page.evaluate(
      `[...document.querySelectorAll("#step-table tbody tr")].map((row) => [...row.children].map((cell) => cell.textContent.trim()))`,
    )) as string[][];
    expect(rows.map((cells) => cells[0])).toEqual([
      "poster",
      "variants",
      "variants[0] › art",
      "variants[1] › art",
      "jingle",
      "tagline",
      "plan",
      "blurb",
    ]);
    const details = (await page.evaluate(
      `[...document.querySelectorAll("section.step")].map((section) => section.id)`,
    )) as string[];
    expect(details).toEqual([
      "step-poster",
      "step-variants",
      "step-variants-0-art",
      "step-variants-1-art",
      "step-jingle",
      "step-tagline",
      "step-plan",
      "step-blurb",
    ]);
    const byStep = new Map(rows.map((cells) => [cells[0], cells]));
    expect(byStep.get("poster")!.slice(1, 4)).toEqual(["image", "gamma-2.5-flash-image", "done"]);
    expect(byStep.get("blurb")![7]).toBe("unpriced");
    expect(byStep.get("jingle")![7]).toBe(formatYuan(run.result.cost.byTag.step!.jingle!.yuan!));
    await page.close();
  });

  it("has the cost table by model with the run's total, and shows an unpriced model as unpriced, not ¥0", async () => {
    const page = await open(run.result.runDir);
    const table = (await page.evaluate(`(() => {
      const table = document.querySelector("#cost-table");
      const rows = [...table.querySelectorAll("tbody tr")].map((row) => [...row.children].map((cell) => cell.textContent.trim()));
      return { rows, total: table.querySelector("#cost-total").textContent.trim() };
    })()`)) as { rows: string[][]; total: string };
    const cost = run.result.cost;
    expect(cost.complete).toBe(false);
    expect(table.total).toBe(
      `${formatYuan(cost.totalYuan)} + unpriced: ${cost.unpriced.calls} call${cost.unpriced.calls === 1 ? "" : "s"}, ${cost.unpriced.promptTokens + cost.unpriced.completionTokens} tokens`,
    );
    const byModel = new Map(table.rows.map((cells) => [cells[0], cells.at(-1)]));
    expect([...byModel.keys()].sort()).toEqual(Object.keys(cost.byModel).sort());
    expect(byModel.get("beta-4o-mini")).toBe("unpriced");
    await page.close();
  });

  it("shows a batch's rows with their results, not the workflow's default inputs, a page of 100 at a time", async () => {
    expect(batch.result.status).toBe("done");
    const page = await open(batch.result.runDir);
    await page.screenshot({ path: path.join(SHOTS, "batch.png"), fullPage: true });
    const shown = (await page.evaluate(`({
      headings: [...document.querySelectorAll("h2")].map((heading) => heading.textContent),
      rows: [...document.querySelectorAll("#items-table tbody tr")].map((row) => [...row.children].map((cell) => cell.textContent.trim())),
      pages: [...document.querySelectorAll("nav.pager a")].map((link) => link.getAttribute("href")),
      shared: [...document.querySelectorAll("dl.values dt")].map((name) => name.textContent),
    })`)) as { headings: string[]; rows: string[][]; pages: string[]; shared: string[] };
    expect(shown.headings).not.toContain("Inputs");
    expect(shown.headings).toContain("Items");
    expect(shown.rows).toHaveLength(100);
    const outputs = (await readFile(path.join(batch.result.runDir, "outputs.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { index: number; output: { sku: string; blurb: string } });
    const first = outputs.find((result) => result.index === 0)!;
    expect(shown.rows[0]!.slice(0, 4)).toEqual(["1", "skuSL-100titleLantern 1", "done", "SL-100"]);
    expect(shown.rows[0]![4]).toBe(first.output.blurb.trim());
    expect(shown.pages).toContain("report-items-2.html");
    expect(shown.shared).toEqual(["tone"]);
    await page.close();

    const second = await open(batch.result.runDir, "report-items-2.html");
    const rest = (await second.evaluate(
      `[...document.querySelectorAll("#items-table tbody tr")].map((row) => [row.children[0].textContent.trim(), row.lastElementChild.textContent.trim()])`,
    )) as string[][];
    expect(rest.map(([row]) => row)).toEqual(Array.from({ length: ROWS - 100 }, (_, index) => String(101 + index)));
    // Rows past the first page leave the run's memory as they end; their cost comes from what it kept by row.
    const { byTag } = JSON.parse(await readFile(path.join(batch.result.runDir, "cost.json"), "utf8")) as CostSummary;
    expect(rest.map(([, cost]) => cost)).toEqual(
      Array.from({ length: ROWS - 100 }, (_, index) => formatYuan(byTag.step![`items[${100 + index}].blurb`]!.yuan!)),
    );
    await second.close();
  });
});
