import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CostLedger } from "../src/cost/cost-ledger.js";
import { loadPriceFile, parsePriceText } from "../src/cost/load-price-file.js";
import { ConfigError } from "../src/errors.js";

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "svc-flow-prices-"));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("price files", () => {
  it("reads a YAML price file whose prices the ledger then uses as overrides", async () => {
    const path = join(directory, "prices.yaml");
    await writeFile(
      path,
      [
        "chat:",
        "  beta-4o-mini: { input: 0.001, output: 0.004 }",
        "image:",
        "  gamma-3-pro-image-preview: 0.8",
        "music:",
        "  generate: 1.5",
        "",
      ].join("\n"),
    );
    const prices = await loadPriceFile(path);
    const ledger = new CostLedger({ prices });
    expect(ledger.prices.chat["beta-4o-mini"]).toEqual({ input: 0.001, output: 0.004, source: "override" });
    expect(ledger.prices.chat["alpha-sonnet-4-6"]?.source).toBe("published");
    expect(ledger.estimate({ kind: "music", operation: "generate" })).toMatchObject({
      yuan: 1.5,
      priceSource: "override",
    });
  });

  it("reads a JSON price file", async () => {
    const path = join(directory, "prices.json");
    await writeFile(path, JSON.stringify({ chat: { "gamma-2.5-flash": { input: 0.002, output: 0.006 } } }));
    expect((await loadPriceFile(path)).chat?.["gamma-2.5-flash"]).toEqual({ input: 0.002, output: 0.006 });
  });

  it.each([
    ["a negative price", "chat:\n  beta-4o:\n    input: -1\n    output: 0.1\n", /prices\.yaml:3: chat\.beta-4o\.input/],
    ["an unknown field", "chat:\n  beta-4o: { input: 1, output: 1, cached: 1 }\n", /prices\.yaml:2: chat\.beta-4o/],
    ["an unknown section", "embeddings: {}\n", /prices\.yaml:1: .*embeddings/],
    [
      "a mistyped model",
      "\nchat:\n  beta-4:\n    input: 1\n    output: 1\n",
      /prices\.yaml:3: chat\.beta-4: unknown model "beta-4"\. Did you mean "beta-4o"/,
    ],
    ["a dated version", "chat:\n  beta-4o-2024-11-20: { input: 1, output: 1 }\n", /catalogue id "beta-4o"/],
    [
      "a token price for an image model",
      "chat:\n  gamma-2.5-flash-image: { input: 1, output: 1 }\n",
      /billed per image; put its price under image:/,
    ],
    ["an unknown music operation", "music:\n  remix: 1\n", /prices\.yaml:2: music\.remix/],
    ["broken syntax", "chat: {beta-4o: {input: 1\n", /prices\.yaml:\d+: /],
  ])("names file, line and path for %s", (_name, text, message) => {
    expect(() => parsePriceText(text, "prices.yaml")).toThrowError(ConfigError);
    expect(() => parsePriceText(text, "prices.yaml")).toThrowError(message);
  });

  it("says which file it could not read", async () => {
    await expect(loadPriceFile(join(directory, "missing.yaml"))).rejects.toThrowError(
      /missing\.yaml \(ENOENT\)\. Check the path/,
    );
  });

  it("reads an empty file as no overrides", () => {
    expect(parsePriceText("", "empty.yaml")).toEqual({});
  });
});
