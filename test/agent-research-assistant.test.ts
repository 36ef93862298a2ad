import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { researchAssistant } from "../agents/index.js";
import { startAgentHarness, startFileServer, type AgentHarness, type AgentRun } from "./agent-harness.js";

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness();
});
afterAll(async () => {
  await harness.close();
});

const FACTS = { "facts.txt": "Lumo is a solar lantern made in Kyoto. It sells for 24.90 yuan.\n" };

function calls(run: AgentRun) {
  return run.outcome.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments, failed: call.failed }));
}

function answerOf(run: AgentRun): string {
  if (run.outcome.status !== "answered") throw new Error(`The run did not answer: ${run.outcome.message}`);
  return run.outcome.answer;
}

/** Every entry the ledger recorded is one the gateway billed, at the same price. */
function expectLedgerMatchesGateway(run: AgentRun): void {
  const billed = new Map(
    harness.gateway
      .stats()
      .keys.flatMap((key) => key.billed)
      .map((entry) => [entry.requestId, entry]),
  );
  for (const entry of run.ledger.entries()) {
    expect(entry.requestId).toBeDefined();
    const charged = billed.get(entry.requestId!);
    expect(charged, `request ${entry.requestId} was billed`).toBeDefined();
    expect(entry.yuan ?? 0).toBeCloseTo(charged!.yuan, 8);
  }
}

describe("research-assistant against the local gateway", () => {
  it("reads a workspace file and answers from it", async () => {
    const run = await harness.run("research-assistant", "Open facts.txt and tell me where the lantern is made.", {
      files: FACTS,
    });
    expect(calls(run)).toEqual([{ name: "read_file", arguments: { path: "facts.txt" }, failed: false }]);
    expect(answerOf(run)).toContain("Kyoto");
    expect(run.outcome.steps).toBe(2);
    // One chat call per step, on the agent's published-price model, tagged with the agent's name.
    expect(run.ledger.entries()).toHaveLength(2);
    for (const entry of run.ledger.entries()) {
      expect(entry).toMatchObject({
        kind: "chat",
        modelRequested: researchAssistant.model,
        status: "ok",
        tags: { agent: "research-assistant" },
      });
      expect(entry.yuan).toBeGreaterThan(0);
    }
    expectLedgerMatchesGateway(run);
  });

  it("reports each step as it happens: turns, tool calls, results, then the answer", async () => {
    const run = await harness.run("research-assistant", "Open facts.txt and tell me where the lantern is made.", {
      files: FACTS,
    });
    expect(run.events.map((event) => event.type)).toEqual([
      "start",
      "model",
      "tool-call",
      "tool-result",
      "model",
      "answer",
    ]);
    expect(run.events[0]).toMatchObject({
      type: "start",
      agent: "research-assistant",
      model: "alpha-sonnet-4-6",
      maxSteps: 12,
    });
    expect(run.events[3]).toMatchObject({
      type: "tool-result",
      step: 1,
      name: "read_file",
      failed: false,
      result: FACTS["facts.txt"],
    });
  });

  it("fetches an http page and answers from it", async () => {
    const server = await startFileServer({
      "/lumo.json": { type: "application/json", body: JSON.stringify({ product: "Lumo", price: "24.90 yuan" }) },
    });
    try {
      const url = `${server.url}/lumo.json`;
      // The file server is on 127.0.0.1, which fetch_url refuses unless told otherwise.
      const run = await harness.run("research-assistant", `Fetch ${url} and tell me the price.`, {
        toolOptions: { allowPrivateNetwork: true },
      });
      expect(calls(run)).toEqual([{ name: "fetch_url", arguments: { url }, failed: false }]);
      expect(run.outcome.toolCalls[0]!.result).toContain("Status: 200 OK");
      expect(answerOf(run)).toContain("24.90 yuan");
    } finally {
      await server.close();
    }
  });

  it("is refused a private network address by default, and says so", async () => {
    const server = await startFileServer({
      "/lumo.json": { type: "application/json", body: JSON.stringify({ price: "24.90 yuan" }) },
    });
    try {
      const url = `${server.url}/lumo.json`;
      const run = await harness.run("research-assistant", `Fetch ${url} and tell me the price.`);
      const [fetched] = run.outcome.toolCalls;
      expect(fetched).toMatchObject({ name: "fetch_url", arguments: { url }, failed: true });
      expect(fetched!.result).toMatch(
        /^Error \(url_refused\): fetch_url does not fetch private network addresses \(127\.0\.0\.1 is loopback\)/,
      );
      expect(answerOf(run)).not.toContain("24.90 yuan");
    } finally {
      await server.close();
    }
  });

  it("writes notes into its workspace", async () => {
    const run = await harness.run("research-assistant", "Save a short note about the lantern to notes/lumo.md.");
    const write = run.outcome.toolCalls.find((call) => call.name === "write_file");
    expect(write).toMatchObject({ arguments: { path: "notes/lumo.md" }, failed: false });
    expect(await readFile(path.join(run.workspace, "notes/lumo.md"), "utf8")).toBe(write!.arguments.content);
    expect(answerOf(run)).toContain("notes/lumo.md");
  });

  it("gets a tool's error as a message it can act on, and still answers", async () => {
    const run = await harness.run("research-assistant", "Open missing.txt and tell me what it says.");
    expect(run.outcome.status).toBe("answered");
    const [read] = run.outcome.toolCalls;
    expect(read).toMatchObject({ name: "read_file", failed: true });
    expect(read!.result).toBe(
      'Error (file_not_found): There is no file "missing.txt" in the workspace. Call list_files to see what exists.',
    );
    expect(answerOf(run)).toContain("There is no file");
  });

  it("is refused a path that climbs out of its workspace, and says so", async () => {
    const outside = await harness.workspace({ "secret.txt": "the launch code" });
    const workspace = path.join(outside, "inner");
    const run = await harness.run("research-assistant", "Open ../secret.txt and tell me what it says.", { workspace });
    const [read] = run.outcome.toolCalls;
    expect(read).toMatchObject({ name: "read_file", arguments: { path: "../secret.txt" }, failed: true });
    expect(read!.result).toMatch(/^Error \(path_outside_workspace\): Path "\.\.\/secret\.txt" is refused/);
    expect(answerOf(run)).not.toContain("the launch code");
  });
});
