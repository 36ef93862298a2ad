import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimateWorkflow } from "../src/cli/estimate/estimate-workflow.js";
import { parseWorkflow, readJournal, resumeWorkflow, WorkflowError } from "../src/workflow/index.js";
import { gatewayOptions, recordsOf, runText, useGateway } from "./workflow-harness.js";

const gateway = useGateway();
const PAGE = JSON.stringify({ product: "Lumo", price: "24.90 yuan" });
const ALLOW = "tools:\n  fetchUrl: { allowPrivateNetwork: true }\n";

// A real HTTP server on loopback: the intranet page a workflow's agent must read.
let server: Server;
let url: string;
let requests = 0;
beforeAll(async () => {
  server = createServer((request, response) => {
    requests++;
    // /slow never answers: the fetch's own timeout has to end it.
    if (request.url !== "/slow") response.writeHead(200, { "content-type": "application/json" }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/lumo.json`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const fetchStep = () =>
  `steps:\n  - id: page\n    uses: tool\n    with: { tool: fetch_url, input: { url: "${url}" } }\n`;
const agentStep = (what: string) =>
  `steps:\n  - id: research\n    uses: agent\n    with: { ${what}, prompt: "Fetch ${url} and tell me the price." }\n`;
const HEAD = "version: 1\ndefaults:\n  model: alpha-sonnet-4-6\n  maxTokens: 300\n";

interface AgentOutput {
  readonly text: string;
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly failed: boolean; readonly result: string }>;
}

describe("the workflow's tools: section, when the file loads", () => {
  it.each([
    [
      "fetch_url: { allowPrivateNetwork: true }",
      'tools.fetch_url: Unknown field "fetch_url". Did you mean "fetchUrl"? Fields here: fetchUrl.',
    ],
    [
      "fetchUrl: { allowPrivate: true }",
      'tools.fetchUrl.allowPrivate: Unknown field "allowPrivate". Fields here: allowPrivateNetwork, maxBytes, timeoutMs.',
    ],
    ["fetchUrl: { allowPrivateNetwork: yes }", "tools.fetchUrl.allowPrivateNetwork: Expected true or false."],
    ["fetchUrl: { maxBytes: 0 }", "tools.fetchUrl.maxBytes: Expected a whole number of bytes above 0, e.g. 524288."],
    [
      "fetchUrl: { timeoutMs: 1.5 }",
      "tools.fetchUrl.timeoutMs: Expected a whole number of milliseconds above 0, e.g. 30000.",
    ],
    [
      'fetchUrl: { maxBytes: "1024" }',
      "tools.fetchUrl.maxBytes: Expected a whole number of bytes above 0, e.g. 524288.",
    ],
  ])("refuses tools: { %s } naming the key", (section, message) => {
    const text = `${HEAD}tools: { ${section} }\n${agentStep("tools: [fetch_url]")}`;
    let caught: unknown;
    try {
      parseWorkflow(text, { fileName: "intranet.yaml" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WorkflowError);
    expect((caught as WorkflowError).message).toMatch(
      new RegExp(`^intranet\\.yaml:5:\\d+ ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
    );
  });

  it("accepts every setting, and leaves them out of the workflow's hash so a run can be resumed with them changed", () => {
    const plain = parseWorkflow(`${HEAD}${fetchStep()}`);
    const set = parseWorkflow(
      `${HEAD}tools:\n  fetchUrl: { allowPrivateNetwork: true, maxBytes: 524288, timeoutMs: 30000 }\n${fetchStep()}`,
    );
    expect(set.definition.tools).toEqual({
      fetchUrl: { allowPrivateNetwork: true, maxBytes: 524288, timeoutMs: 30000 },
    });
    expect(set.hash).toBe(plain.hash);
    expect(parseWorkflow(`${HEAD}${fetchStep().replace("page", "other")}`).hash).not.toBe(plain.hash);
  });
});

describe("the workflow's tools: section, when the run calls fetch_url", () => {
  it("refuses a loopback page in a tool step by default, failing the step with url_refused and the fix", async () => {
    const before = requests;
    const { result } = await runText(gateway.current, `${HEAD}${fetchStep()}`);
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("url_refused");
    expect(result.error?.message).toContain(
      "fetch_url does not fetch private network addresses (127.0.0.1 is loopback)",
    );
    expect(result.error?.message).toContain("in a workflow file: tools: { fetchUrl: { allowPrivateNetwork: true } }");
    expect(requests).toBe(before);
  });

  it("fetches it in a tool step with tools.fetchUrl.allowPrivateNetwork: true", async () => {
    const { result } = await runText(gateway.current, `${HEAD}${ALLOW}${fetchStep()}`);
    expect(result.status).toBe("done");
    expect(result.outputs?.page).toContain("Status: 200 OK");
    expect(result.outputs?.page).toContain(PAGE);
  });

  it("applies maxBytes to the fetched body", async () => {
    const { result } = await runText(
      gateway.current,
      `${HEAD}tools: { fetchUrl: { allowPrivateNetwork: true, maxBytes: 10 } }\n${fetchStep()}`,
    );
    expect(result.outputs?.page).toContain(`\n${PAGE.slice(0, 10)}\n[Truncated: only the first 10 B were read.]`);
  });

  it("applies timeoutMs to the whole fetch", async () => {
    const slow = fetchStep()
      .replace("/lumo.json", "/slow")
      .replace("    uses: tool", "    retry: { attempts: 1 }\n    uses: tool");
    const { result } = await runText(
      gateway.current,
      `${HEAD}tools: { fetchUrl: { allowPrivateNetwork: true, timeoutMs: 100 } }\n${slow}`,
    );
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("took longer than 100 ms and was stopped");
  });

  it("refuses it to an inline agent by default: the tool call fails with url_refused and the agent answers without the page", async () => {
    const before = requests;
    const { result } = await runText(gateway.current, `${HEAD}${agentStep("tools: [fetch_url]")}`);
    const output = result.outputs?.research as AgentOutput;
    expect(output.toolCalls).toHaveLength(1);
    expect(output.toolCalls[0]).toMatchObject({ name: "fetch_url", failed: true });
    expect(output.toolCalls[0]!.result).toMatch(
      /^Error \(url_refused\): fetch_url does not fetch private network addresses \(127\.0\.0\.1 is loopback\)\. .*tools: \{ fetchUrl: \{ allowPrivateNetwork: true \} \}/,
    );
    expect(output.text).not.toContain("24.90 yuan");
    expect(requests).toBe(before);
  });

  it.each([
    ["an inline agent", "tools: [fetch_url]"],
    ["a named agent", "agent: research-assistant"],
  ])("lets %s fetch it with tools.fetchUrl.allowPrivateNetwork: true", async (_kind, what) => {
    const { result } = await runText(gateway.current, `${HEAD}${ALLOW}${agentStep(what)}`);
    expect(result.status).toBe("done");
    const output = result.outputs?.research as AgentOutput;
    expect(output.toolCalls.map((call) => ({ name: call.name, failed: call.failed }))).toEqual([
      { name: "fetch_url", failed: false },
    ]);
    expect(output.toolCalls[0]!.result).toContain("Status: 200 OK");
    expect(output.text).toContain("24.90 yuan");
  });

  it("applies to a chat step's tools too", async () => {
    const chat = `steps:\n  - id: research\n    uses: chat\n    with: { tools: [fetch_url], prompt: "Fetch ${url} and tell me the price." }\n`;
    const refused = (await runText(gateway.current, `${HEAD}${chat}`)).result.outputs?.research as AgentOutput;
    expect(refused.toolCalls[0]).toMatchObject({ name: "fetch_url", failed: true });
    const allowed = (await runText(gateway.current, `${HEAD}${ALLOW}${chat}`)).result.outputs?.research as AgentOutput;
    expect(allowed.toolCalls[0]).toMatchObject({ name: "fetch_url", failed: false });
    expect(allowed.text).toContain("24.90 yuan");
  });

  it("resumes a run refused the page with the setting added, without running its finished steps again", async () => {
    const steps = `steps:\n  - id: sum\n    uses: tool\n    with: { tool: calculator, input: { expression: "2 + 2" } }\n  - id: page\n    needs: [sum]\n    uses: tool\n    with: { tool: fetch_url, input: { url: "${url}" } }\n`;
    const first = await runText(gateway.current, `version: 1\n${steps}`);
    expect(first.result.status).toBe("failed");
    expect(first.result.error?.code).toBe("url_refused");
    const edited = parseWorkflow(`version: 1\n${ALLOW}${steps}`, { fileName: "test.yaml" });
    const resumed = await resumeWorkflow(first.result.runDir, { ...gatewayOptions(gateway.current), workflow: edited });
    expect(resumed.status).toBe("done");
    expect(resumed.outputs).toMatchObject({ sum: "4", page: expect.stringContaining(PAGE) });
    const journal = (await readJournal(path.join(first.result.runDir, "journal.jsonl"))).records;
    expect(recordsOf(journal, "step-finished").map((record) => record.key)).toEqual(["sum", "page"]);
    // The run's own copy now has the setting, so a later plain resume keeps it.
    expect(await readFile(path.join(first.result.runDir, "workflow.yaml"), "utf8")).toBe(edited.text);
  });
});

describe("the workflow's tools: section, in an estimate", () => {
  it("counts fetch_url's description as the run would send it", async () => {
    const estimate = async (tools: string) =>
      (await estimateWorkflow(parseWorkflow(`${HEAD}${tools}${agentStep("tools: [fetch_url]")}`))).maxYuan;
    // Allowed, the description loses its sentence about refused addresses: fewer prompt tokens every turn.
    expect(await estimate(ALLOW)).toBeLessThan(await estimate(""));
  });
});
