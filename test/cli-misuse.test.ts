// The CLI as a new user misuses it, through bin/svc-flow.js: values given twice or unquoted.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { spawnCli } from "./cli-process.js";
import { tempDir } from "./workflow-harness.js";

vi.setConfig({ testTimeout: 90_000 });

const FLOW = `version: 1
name: pitch
inputs:
  product: { type: string, default: "a solar lantern" }
steps:
  - id: pitch
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line for \${{ inputs.product }}.", maxTokens: 40 }
`;

let gateway: LocalGateway;
let env: NodeJS.ProcessEnv;
let folder: string;
beforeAll(async () => {
  gateway = await startLocalGateway({ port: 0 });
  env = { SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" };
  folder = await tempDir("svc-flow-misuse-");
  await writeFile(path.join(folder, "pitch.yaml"), FLOW);
});
afterAll(async () => gateway?.close());

async function cli(argv: string[], extraEnv: NodeJS.ProcessEnv = env) {
  const running = spawnCli(argv, { cwd: folder, env: extraEnv });
  const { code } = await running.exit;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

describe("--input values", () => {
  it.each([["run"], ["estimate"]])(
    "%s refuses an input given twice, instead of keeping the last value, and says how to give a list",
    async (command) => {
      const result = await cli([command, "pitch.yaml", "--input", "product=kettle", "--input", "product=lamp"]);
      expect(result.stderr).toContain(
        `--input product is given twice ("kettle", then "lamp"). Give it once; a list goes as JSON: --input 'product=["a", "b"]'.`,
      );
      expect(result.code).toBe(2);
      expect(existsSync(path.join(folder, "runs"))).toBe(false);
    },
  );

  it.each([["run"], ["estimate"]])(
    "%s names the stray words of an unquoted value and says to quote it",
    async (command) => {
      const result = await cli([command, "pitch.yaml", "--input", "product=a", "folding", "kettle"]);
      expect(result.stderr).toContain(
        `one workflow file at a time (got 3 arguments: "pitch.yaml", "folding", "kettle"). Quote a value that has spaces: --input product="a folding kettle".`,
      );
      expect(result.code).toBe(2);
    },
  );
});

describe("a gateway half configured", () => {
  it.each([
    [
      { SVC_BASE_URL: "http://127.0.0.1:1/v1" },
      "SVC_BASE_URL is set but SVC_API_KEY is not. Set SVC_API_KEY to your gateway key, or unset SVC_BASE_URL to use the local gateway. [missing_api_key]",
    ],
    [
      { SVC_API_KEY: "sk-local-demo" },
      "SVC_API_KEY is set but SVC_BASE_URL is not. Set SVC_BASE_URL to the gateway's /v1 root, or unset SVC_API_KEY to use the local gateway. [missing_base_url]",
    ],
  ])("names the variable that is missing and both ways out, with exit 2 (%o)", async (half, says) => {
    const result = await cli(["models"], half);
    expect(result.stderr).toBe(`svc-flow models: ${says}\n`);
    expect(result.code).toBe(2);
  });
});

describe("a gateway that cannot be reached as configured", () => {
  const key = "sk-misuse-0123456789abcdef";

  it("says a base URL where nothing listens could not be connected to, with exit 1 and never the key", async () => {
    // A port that was just free: the gateway given is not running.
    const closed = await startLocalGateway({ port: 0 });
    const baseURL = closed.baseURL;
    await closed.close();
    const result = await cli(["chat", "hi", "--max-tokens", "10"], { SVC_BASE_URL: baseURL, SVC_API_KEY: key });
    expect(result.stderr).toContain(
      `svc-flow chat: Could not connect to ${baseURL}/chat/completions (ECONNREFUSED). Check SVC_BASE_URL and that the gateway is running. [connection_error]`,
    );
    expect(result.stderr + result.stdout).not.toContain(key.slice(3));
    expect(result.code).toBe(1);
  });

  it("says an https base URL of a plain-http gateway does not speak TLS, in one line, with exit 1", async () => {
    const baseURL = gateway.baseURL.replace("http:", "https:");
    const result = await cli(["models"], { SVC_BASE_URL: baseURL, SVC_API_KEY: key });
    expect(result.stderr).toBe(
      `svc-flow models: Could not make an https connection to ${baseURL}/models (ERR_SSL_WRONG_VERSION_NUMBER): the server there does not speak TLS. If the gateway serves plain http, use http:// in SVC_BASE_URL. [transport_error]\n`,
    );
    expect(result.code).toBe(1);
  });

  it("proposes the /v1 root for a base URL that names an endpoint, with exit 2", async () => {
    const result = await cli(["models"], { SVC_BASE_URL: `${gateway.baseURL}/chat/completions`, SVC_API_KEY: key });
    expect(result.stderr).toContain(`not name an endpoint. Use "${gateway.baseURL}". [invalid_base_url]`);
    expect(result.code).toBe(2);
  });
});
