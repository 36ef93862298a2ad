import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLISHED_PRICES } from "../src/catalog/prices.js";
import { joinModelList, type ModelListing } from "../src/cli/model-listing.js";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { gatewayEnv, runCli } from "./cli-harness.js";

const KEY = "sk-cli-models-secret-7f3a";
const LIMITED_KEY = "sk-cli-models-limited-91bc";
let gateway: LocalGateway;
let dir: string;

beforeAll(async () => {
  gateway = await startLocalGateway({
    port: 0,
    config: {
      keys: [
        { key: KEY, models: "*" },
        { key: LIMITED_KEY, models: ["alpha-sonnet-4-6", "beta-4o", "gamma-2.5-flash-image"] },
      ],
    },
  });
  dir = await mkdtemp(join(tmpdir(), "svc-flow-cli-models-"));
});
afterAll(async () => {
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

describe("svc-flow models", () => {
  it("lists the key's models with catalogue facts and prices, and never prints the key", async () => {
    const result = await runCli(["models"], { env: gatewayEnv(gateway.baseURL, LIMITED_KEY), cwd: dir });
    expect(result.code).toBe(0);
    const lines = result.stdout.text.split("\n");
    expect(lines[0]).toMatch(/^MODEL\s+FAMILY\s+TIER\s+CONTEXT\s+CAPABILITIES\s+PRICE\s+RULES/);
    expect(lines.find((line) => line.startsWith("alpha-sonnet-4-6 "))).toMatch(
      /alpha\s+standard\s+200K\s+vision,tools\s+¥0\.032 in \/ ¥0\.1598 out per 1K/,
    );
    expect(lines.find((line) => line.startsWith("beta-4o "))).toMatch(/beta\s+standard\s+-\s+vision,tools\s+unpriced/);
    expect(lines.find((line) => line.startsWith("gamma-2.5-flash-image "))).toMatch(/image-output\s+¥0\.42 per image/);
    // Catalogue models the key may not call are left out.
    expect(result.stdout.text).not.toMatch(/^beta-5 /m);
    expect(result.stdout.text + result.stderr.text).not.toContain(LIMITED_KEY);
  });

  it("with --all lists the catalogue models the key may not call in a section of their own", async () => {
    const result = await runCli(["models", "--all"], { env: gatewayEnv(gateway.baseURL, LIMITED_KEY), cwd: dir });
    expect(result.code).toBe(0);
    const [callable, unavailable] = result.stdout.text.split("In the catalogue but not available to this key:");
    expect(callable).toMatch(/^alpha-sonnet-4-6 /m);
    expect(callable).not.toMatch(/^gamma-2\.5-pro /m);
    expect(unavailable).toMatch(
      /^gamma-2\.5-pro\s+gamma\s+flagship\s+1M\s+vision,audio,video,tools,reasoning\s+unpriced\s+output limit at least 4096/m,
    );
    expect(unavailable).not.toMatch(/^alpha-sonnet-4-6 /m);
  });

  it("gives programs JSON with rules and prices", async () => {
    const result = await runCli(["models", "--json"], { env: gatewayEnv(gateway.baseURL, KEY), cwd: dir });
    expect(result.code).toBe(0);
    const { models } = JSON.parse(result.stdout.text) as { models: ModelListing[] };
    const ids = models.map((model) => model.id);
    expect(ids).toContain("beta-5");
    const beta5 = models.find((model) => model.id === "beta-5")!;
    expect(beta5).toMatchObject({
      family: "beta",
      tier: "flagship",
      contextWindow: 400_000,
      callable: true,
      price: { kind: "unpriced" },
    });
    expect(beta5.rules).toContain("output limit sent as max_completion_tokens");
    expect(models.find((model) => model.id === "alpha-opus-4-8")!.rules).toContain("temperature/top_p dropped");
    expect(models.find((model) => model.id === "alpha-sonnet-4-6")!.price).toEqual({
      kind: "tokens",
      inputPer1K: 0.032,
      outputPer1K: 0.1598,
      source: "published",
    });
  });

  it("marks prices from a price file as the user's own", async () => {
    const file = join(dir, "prices.json");
    await writeFile(file, JSON.stringify({ chat: { "beta-4o": { input: 0.01, output: 0.03 } } }));
    const result = await runCli(["models", "--prices", "prices.json"], {
      env: gatewayEnv(gateway.baseURL, LIMITED_KEY),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.text).toMatch(/^beta-4o .*¥0\.01 in \/ ¥0\.03 out per 1K \(your price\)/m);
  });

  it("exits 2 naming the problem when the key is wrong, without echoing it", async () => {
    const wrong = "sk-not-a-real-key-5521";
    const result = await runCli(["models"], { env: gatewayEnv(gateway.baseURL, wrong), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/svc-flow models: .*\[invalid_api_key/);
    expect(result.stdout.text + result.stderr.text).not.toContain(wrong);
  });

  it("starts a local gateway when SVC_BASE_URL and SVC_API_KEY are unset, saying so in one stderr line", async () => {
    const result = await runCli(["models"], { env: {}, cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stderr.text.split("\n").filter((line) => line !== "")).toEqual([
      expect.stringMatching(
        /^svc-flow: SVC_BASE_URL is not set; using a local gateway with simulated models at http:\/\/127\.0\.0\.1:\d+\/v1$/,
      ),
    ]);
    expect(result.stdout.text).toMatch(/^gamma-3\.5-flash /m);
  });

  it("rejects an unexpected argument with exit 2 and the usage line", async () => {
    const result = await runCli(["models", "beta"], { env: gatewayEnv(gateway.baseURL, KEY), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.text).toMatch(/Unexpected argument "beta"[\s\S]*Usage: svc-flow models/);
  });

  it("runs as the real bin/svc-flow.js process", async () => {
    const bin = fileURLToPath(new URL("../bin/svc-flow.js", import.meta.url));
    const child = spawn(process.execPath, [bin, "models", "--json"], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...gatewayEnv(gateway.baseURL, LIMITED_KEY) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    const { models } = JSON.parse(stdout) as { models: ModelListing[] };
    expect(models.map((model) => model.id)).toEqual(["alpha-sonnet-4-6", "beta-4o", "gamma-2.5-flash-image"]);
    expect(stdout + stderr).not.toContain(LIMITED_KEY);
  }, 60_000);
});

describe("joinModelList", () => {
  it("shows models the key lists but the catalogue does not know as such, and dated versions under their alias", () => {
    const list = {
      object: "list" as const,
      data: [
        { id: "alpha-sonnet-4-6-20260115", object: "model" as const, owned_by: "alpha" },
        { id: "delta-9-experimental", object: "model" as const, owned_by: "delta" },
      ],
    };
    const { models, unavailable } = joinModelList(list, PUBLISHED_PRICES);
    expect(models[0]).toMatchObject({
      id: "alpha-sonnet-4-6-20260115",
      catalogueId: "alpha-sonnet-4-6",
      family: "alpha",
      price: { kind: "tokens" },
    });
    expect(models[1]).toMatchObject({
      id: "delta-9-experimental",
      family: "delta",
      callable: true,
      price: { kind: "unpriced" },
    });
    expect(models[1]!.catalogueId).toBeUndefined();
    expect(models[1]!.rules[0]).toMatch(/not in svc-flow's catalogue/);
    expect(unavailable).toEqual([]);
    const all = joinModelList(list, PUBLISHED_PRICES, { all: true });
    expect(all.unavailable.map((model) => model.id)).not.toContain("alpha-sonnet-4-6");
    expect(all.unavailable.map((model) => model.id)).toContain("beta-5");
    expect(all.unavailable.every((model) => !model.callable)).toBe(true);
  });
});
