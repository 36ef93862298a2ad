import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentHarness, type AgentHarness } from "./agent-harness.js";
import { gatewayEnv, runCli } from "./cli-harness.js";

let harness: AgentHarness;
let server: Server;
let root: string;
const PAGE = JSON.stringify({ product: "Lumo", price: "24.90 yuan" });

beforeAll(async () => {
  harness = await startAgentHarness();
  // The intranet page: a real HTTP server on loopback, which fetch_url refuses by default. /slow never answers.
  server = createServer((request, response) => {
    if (request.url !== "/slow")
      response
        .writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(PAGE) })
        .end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await harness.close();
});

interface JsonRun {
  readonly status: string;
  readonly answer: string;
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly failed: boolean; readonly result: string }>;
}

async function agent(...flags: string[]) {
  return agentOn("/lumo.json", ...flags);
}

async function agentOn(page: string, ...flags: string[]) {
  const cwd = await harness.workspace();
  const task = `Fetch ${root}${page} and tell me the price.`;
  return runCli(["agent", "research-assistant", task, ...flags], {
    env: gatewayEnv(harness.connection.baseURL, harness.connection.apiKey),
    cwd,
  });
}

describe("svc-flow agent's fetch_url flags", () => {
  it("refuses a loopback page by default, naming --allow-private-network", async () => {
    const result = await agent("--json");
    expect(result.code).toBe(0);
    const run = JSON.parse(result.stdout.text) as JsonRun;
    expect(run.toolCalls[0]).toMatchObject({ name: "fetch_url", failed: true });
    expect(run.toolCalls[0]!.result).toMatch(
      /^Error \(url_refused\): fetch_url does not fetch private network addresses \(127\.0\.0\.1 is loopback\)\. .*for svc-flow agent: --allow-private-network/,
    );
    expect(run.answer).not.toContain("24.90 yuan");
  });

  it("fetches it with --allow-private-network and answers from it", async () => {
    const result = await agent("--allow-private-network", "--json");
    expect(result.code).toBe(0);
    const run = JSON.parse(result.stdout.text) as JsonRun;
    expect(run.toolCalls.map((call) => ({ name: call.name, failed: call.failed }))).toEqual([
      { name: "fetch_url", failed: false },
    ]);
    expect(run.toolCalls[0]!.result).toContain(`Status: 200 OK`);
    expect(run.answer).toContain("24.90 yuan");
  });

  it("cuts the body at --fetch-max-bytes", async () => {
    const result = await agent("--allow-private-network", "--fetch-max-bytes", "10", "--json");
    const run = JSON.parse(result.stdout.text) as JsonRun;
    expect(run.toolCalls[0]!.result).toContain(
      `\n${PAGE.slice(0, 10)}\n[Truncated: only the first 10 B of ${PAGE.length} B were read.]`,
    );
  });

  it("stops a fetch at --fetch-timeout-ms", async () => {
    const result = await agentOn("/slow", "--allow-private-network", "--fetch-timeout-ms", "100", "--json");
    const run = JSON.parse(result.stdout.text) as JsonRun;
    expect(run.toolCalls[0]).toMatchObject({ name: "fetch_url", failed: true });
    expect(run.toolCalls[0]!.result).toContain("took longer than 100 ms and was stopped");
  });

  it.each([
    [["--fetch-max-bytes", "0"], 'Expected --fetch-max-bytes to be a number >= 1, got "0".'],
    [["--fetch-max-bytes", "lots"], 'Expected --fetch-max-bytes to be a number >= 1, got "lots".'],
    [["--fetch-timeout-ms", "1.5"], 'Expected --fetch-timeout-ms to be a whole number, got "1.5".'],
    [["--allow-private-network=yes"], "--allow-private-network"],
  ])("exits 2 on a bad value: %j", async (flags, message) => {
    const result = await agent(...flags);
    expect(result.code).toBe(2);
    expect(result.stderr.text).toContain(message);
  });

  it("documents the flags in its help", async () => {
    const result = await runCli(["agent", "--help"], { env: {}, cwd: process.cwd() });
    expect(result.stdout.text).toMatch(
      /^ {2}--allow-private-network +Let fetch_url reach localhost and private addresses/m,
    );
    expect(result.stdout.text).toMatch(
      /^ {2}--fetch-max-bytes N +Most bytes fetch_url reads from a page; default: 262144$/m,
    );
    expect(result.stdout.text).toMatch(
      /^ {2}--fetch-timeout-ms N +How long fetch_url waits for a page; default: 15000$/m,
    );
  });
});
