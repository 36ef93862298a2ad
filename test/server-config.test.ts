import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/errors.js";
import {
  API_VERSION,
  DEMO_KEY,
  loadGatewayConfig,
  parseGatewayConfig,
  startLocalGateway,
} from "../src/server/index.js";
import { getWithKey, useGateway } from "./server-helpers.js";

async function configFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "svc-gateway-config-"));
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

describe("local gateway config", () => {
  it("loads the YAML form of DESIGN.md section 3", async () => {
    const file = await configFile(
      "gateway.yaml",
      `keys:
  - key: sk-test-main
    quota: 100
    models: "*"
    rpm: 600
    concurrency: 16
prices:
  chat: { beta-4o-mini: { input: 0.001, output: 0.004 } }
faults:
  seed: 1
  latencyMs: 0
  models:
    alpha-opus-4-8: { errorRate: 1.0, status: 503 }
    beta-4o: { rateLimitRate: 0.3, retryAfterS: 0.05, dropRate: 0.05 }
music:
  completeAfterMs: 2000
`,
    );
    const config = await loadGatewayConfig(file);
    expect(config.keys![0]).toMatchObject({ key: "sk-test-main", quota: 100, rpm: 600, concurrency: 16 });
    expect(config.faults.models["beta-4o"]).toMatchObject({
      rateLimitRate: 0.3,
      retryAfterS: 0.05,
      dropRate: 0.05,
      errorRate: 0,
    });
    expect(config.music.completeAfterMs).toBe(2000);
  });

  it("loads JSON too", async () => {
    const file = await configFile("gateway.json", JSON.stringify({ keys: [{ key: "sk-test-json", quota: 5 }] }));
    expect((await loadGatewayConfig(file)).keys![0]!.quota).toBe(5);
  });

  it("names the file, line and path of a bad value", async () => {
    const file = await configFile("bad.yaml", "keys:\n  - key: sk-test-a\n    quota: lots\n");
    const error = await loadGatewayConfig(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`${file}:3: keys[0].quota`);
  });

  it("suggests the closest model for a misspelt id", async () => {
    const file = await configFile("models.yaml", "faults:\n  models:\n    beta-4oo: { errorRate: 1 }\n");
    await expect(loadGatewayConfig(file)).rejects.toThrow(/beta-4o/);
  });

  it("reports YAML syntax errors with the file and line", async () => {
    const file = await configFile("broken.yaml", "keys:\n  - key: sk-a\n   quota: [\n");
    await expect(loadGatewayConfig(file)).rejects.toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+`),
    );
  });

  it("rejects unknown fields, so typos are not ignored", () => {
    expect(() => parseGatewayConfig({ keys: [{ key: "sk-test-x", qouta: 1 }] })).toThrow(/qouta/);
  });

  it("rejects duplicate keys", () => {
    expect(() => parseGatewayConfig({ keys: [{ key: "sk-test-x" }, { key: "sk-test-x" }] })).toThrow(/Duplicate/);
  });

  it("rejects a bad config given to startLocalGateway", async () => {
    await expect(
      startLocalGateway({ config: { faults: { models: { "beta-4o": { errorRate: 2 } } } } }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});

describe("local gateway defaults and description", () => {
  const gateway = useGateway();

  it("accepts the demo key for every model without a config", async () => {
    const response = await getWithKey(`${gateway().baseURL}/models`, DEMO_KEY);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(19);
  });

  it("describes the interface at /v1 for a browser, without a chat page or a key", async () => {
    const response = await fetch(gateway().baseURL, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toContain(API_VERSION);
    expect(html).toContain("/v1/chat/completions");
    expect(html).not.toMatch(/<form|<textarea|<script/i);
  });

  it("describes the interface as JSON with the version label 2026-07-15", async () => {
    const body = (await (await fetch(gateway().baseURL)).json()) as { version: string; base_url: string };
    expect(body.version).toBe("2026-07-15");
    expect(body.base_url).toBe(gateway().baseURL);
  });

  it("gives baseURL ending in /v1 and rootURL without it", () => {
    expect(gateway().baseURL).toBe(`${gateway().rootURL}/v1`);
    expect(gateway().rootURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
