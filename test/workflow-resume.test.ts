import { spawn } from "node:child_process";
import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Agent, type Dispatcher } from "undici";
import { describe, expect, it } from "vitest";
import { parseWorkflow, readJournal, resumeWorkflow, runWorkflow, type WorkflowEvent } from "../src/workflow/index.js";
import { billed, gatewayOptions, readJson, recordsOf, runText, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway({ music: { completeAfterMs: 30 } });

const POSTERS = `version: 1
budget: { maxYuan: 1 }
steps:
  - id: posters
    map: ["dawn", "noon", "dusk"]
    concurrency: 3
    steps:
      - id: poster
        uses: image
        with: { prompt: "A lantern at \${{ item }}" }
`;

/** A dispatcher that records the idempotency key of every request sent through it. */
function recordingDispatcher(): { dispatcher: Dispatcher; keys: string[]; close: () => Promise<void> } {
  const agent = new Agent();
  const keys: string[] = [];
  const dispatcher = agent.compose((dispatch) => (options, handler) => {
    const headers = options.headers as Record<string, string> | undefined;
    if (options.method === "POST") keys.push(headers?.["idempotency-key"] ?? "(none)");
    return dispatch(options, handler);
  });
  return { dispatcher, keys, close: () => agent.close() };
}

describe("resuming a run", () => {
  it("stops at the budget resumably, then finishes with a raised budget without paying twice", async () => {
    const images = () => billed(gateway.current).filter((entry) => (entry.images ?? 0) > 0).length;
    const before = images();
    const stopped = await runText(gateway.current, POSTERS);
    expect(stopped.result).toMatchObject({ status: "stopped", reason: "budget", error: { code: "budget_exceeded" } });
    expect(stopped.result.error?.message).toMatch(/resume with a raised budget: svc-flow resume .* --budget YUAN/);
    expect(images() - before).toBe(2);
    expect(recordsOf(stopped.journal, "item-finished")).toHaveLength(2);
    expect(recordsOf(stopped.journal, "run-finished")).toEqual([
      expect.objectContaining({ status: "stopped", reason: "budget" }),
    ]);

    const again = await resumeWorkflow(stopped.result.runDir, gatewayOptions(gateway.current, { budgetYuan: 2 }));
    expect(again.status).toBe("done");
    expect(images() - before).toBe(3);
    expect(again.outputs?.posters).toHaveLength(3);
    expect(again.cost.totalYuan).toBeCloseTo(1.26, 6);
    expect(((await readJson(again.runDir, "cost.json")) as { totalYuan: number }).totalYuan).toBeCloseTo(1.26, 6);
  });

  it("re-runs only what the journal lacks, ignoring a line torn by a kill", async () => {
    const workflow = `version: 1
defaults: { model: beta-4o-mini, maxTokens: 50 }
steps:
  - id: first
    uses: chat
    with: { prompt: "Name a colour" }
  - id: each
    map: [1, 2, 3]
    concurrency: 1
    steps:
      - id: say
        uses: chat
        with: { prompt: "Say \${{ item }} after \${{ steps.first.output.text }}" }
`;
    const done = await runText(gateway.current, workflow);
    expect(done.result.status).toBe("done");
    // The journal as a kill after item 0 leaves it: everything up to that item, then half a line.
    const journalPath = path.join(done.result.runDir, "journal.jsonl");
    const lines = (await readFile(journalPath, "utf8")).split("\n");
    const cut = lines.findIndex((line) => line.includes('"type":"item-finished"'));
    await writeFile(
      journalPath,
      `${lines.slice(0, cut + 1).join("\n")}\n{"type":"step-finished","key":"each[1].say","id`,
    );
    const recorder = recordingDispatcher();
    const resumed = await resumeWorkflow(
      done.result.runDir,
      gatewayOptions(gateway.current, {
        gateway: { baseURL: gateway.current.baseURL, apiKey: "sk-local-demo", dispatcher: recorder.dispatcher },
      }),
    );
    await recorder.close();
    expect(resumed.status).toBe("done");
    expect(resumed.outputs).toEqual(done.result.outputs);
    const runId = done.result.runId;
    expect(recorder.keys).toEqual([
      expect.stringMatching(keyOf(runId, "each[1].say")),
      expect.stringMatching(keyOf(runId, "each[2].say")),
    ]);
    const { records, tornTail } = await readJournal(journalPath);
    expect(tornTail).toBe(false);
    expect(recordsOf(records, "run-resumed")).toHaveLength(1);
  });

  it("sends one idempotency key per call: retries share it, a fallback model gets another", async () => {
    const failing = useGatewayConfigured();
    const recorder = recordingDispatcher();
    const workflow = parseWorkflow(`version: 1
steps:
  - id: hello
    uses: chat
    retry: { attempts: 2, minDelayMs: 1, maxDelayMs: 1 }
    with: { model: alpha-opus-4-8, fallbacks: [beta-4o-mini], prompt: "Hello", maxTokens: 20 }
`);
    const gatewayInstance = await failing;
    const events: WorkflowEvent[] = [];
    const result = await runWorkflow(
      workflow,
      gatewayOptions(gatewayInstance, {
        outDir: path.join(await tempDir(), "run"),
        onEvent: (event) => events.push(event),
        gateway: { baseURL: gatewayInstance.baseURL, apiKey: "sk-local-demo", dispatcher: recorder.dispatcher },
      }),
    );
    await recorder.close();
    await gatewayInstance.close();
    expect(result.status).toBe("done");
    const [first, retry, fallback] = recorder.keys;
    expect(recorder.keys).toHaveLength(3);
    expect(first).toMatch(keyOf(result.runId, "hello"));
    expect(retry).toBe(first);
    expect(fallback).toMatch(keyOf(result.runId, "hello"));
    expect(fallback).not.toBe(first);
    // One retry of alpha-opus-4-8 after its first failure, with the wait its policy gave; the second failure moves to the fallback.
    expect(events.filter((event) => event.type === "step-retry")).toEqual([
      expect.objectContaining({ attempt: 1, model: "alpha-opus-4-8", delayMs: expect.any(Number) }),
    ]);
    expect(events.some((event) => event.type === "step-fallback" && /moved to beta-4o-mini/.test(event.message))).toBe(
      true,
    );
    const { records } = await readJournal(path.join(result.runDir, "journal.jsonl"));
    expect(recordsOf(records, "step-finished")[0]).toMatchObject({
      attempts: 3,
      fallbacks: ["alpha-opus-4-8"],
      model: "beta-4o-mini",
    });
  });

  it("stops resumably when its signal aborts, and a resume finishes without redoing finished steps", async () => {
    const controller = new AbortController();
    const text = `version: 1
steps:
  - id: first
    uses: tool
    with: { tool: calculator, input: { expression: "6 * 7" } }
  - id: second
    uses: music
    with: { prompt: "A jingle about \${{ steps.first.output }}" }
`;
    const stopped = await runText(gateway.current, text, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "step-started" && event.id === "second") controller.abort(new Error("Received SIGINT"));
      },
    });
    expect(stopped.result).toMatchObject({ status: "stopped", reason: "interrupted" });
    expect(stopped.result.error?.message).toMatch(/^Interrupted: .* continue with: svc-flow resume /);
    const again = await resumeWorkflow(stopped.result.runDir, gatewayOptions(gateway.current));
    expect(again.status).toBe("done");
    expect(again.outputs?.first).toBe("42");
    const { records } = await readJournal(path.join(again.runDir, "journal.jsonl"));
    expect(recordsOf(records, "step-finished").filter((record) => record.key === "first")).toHaveLength(1);
  });

  it("stops at the first call to an unpriced model under a budget, saying how to price it", async () => {
    // A model named by an input is known only when the step runs, so the loader cannot refuse it.
    const { result } = await runText(
      gateway.current,
      `version: 1\nbudget: { maxYuan: 5 }\ninputs:\n  model: { type: string, default: beta-4o-mini }\nsteps:\n  - id: a\n    uses: chat\n    with: { model: "\${{ inputs.model }}", prompt: hi, maxTokens: 10 }\n`,
    );
    expect(result).toMatchObject({ status: "stopped", reason: "budget" });
    expect(result.error?.message).toMatch(/has no price.*--prices FILE\) or with --allow-unpriced/);
  });

  it("refuses to resume with a workflow that changed since the run started", async () => {
    const folder = await tempDir();
    const file = path.join(folder, "flow.yaml");
    await writeFile(
      file,
      'version: 1\nsteps:\n  - id: a\n    uses: tool\n    with: { tool: calculator, input: { expression: "1" } }\n',
    );
    const first = await runText(gateway.current, await readFile(file, "utf8"));
    await appendFile(file, '  - id: b\n    uses: tool\n    with: { tool: calculator, input: { expression: "2" } }\n');
    await expect(
      resumeWorkflow(first.result.runDir, { ...gatewayOptions(gateway.current), workflow: file }),
    ).rejects.toMatchObject({
      code: "workflow_changed",
      message: expect.stringMatching(/different version of the workflow.*start a new run/),
    });
    // The refused resume leaves the run directory as it found it (no cost-calls file of its own).
    expect(await readdir(first.result.runDir)).not.toContain(".cost-calls.jsonl");
  });

  it("after a kill -9 during polling, polls the journaled music job instead of submitting it again", async () => {
    const slow = await import("../src/server/index.js").then(({ startLocalGateway }) =>
      startLocalGateway({ config: { music: { completeAfterMs: 1500 } } }),
    );
    try {
      const folder = await tempDir();
      const file = path.join(folder, "flow.yaml");
      const runDir = path.join(folder, "run");
      await writeFile(
        file,
        `version: 1
steps:
  - id: words
    uses: music
    with: { operation: lyrics, prompt: "lanterns" }
  - id: jingle
    uses: music
    needs: [words]
    with: { prompt: "Upbeat jingle", instrumental: true }
`,
      );
      const child = spawn(
        process.execPath,
        ["--import", "tsx", path.join(import.meta.dirname, "workflow-child-run.ts"), file, runDir],
        {
          env: { ...process.env, SVC_BASE_URL: slow.baseURL, SVC_API_KEY: "sk-local-demo" },
          stdio: "ignore",
        },
      );
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await waitFor(async () =>
        (await readFile(path.join(runDir, "journal.jsonl"), "utf8").catch(() => "")).includes('"musicJob"'),
      );
      child.kill("SIGKILL");
      await exited;
      const billedBefore = slow.stats().keys[0]!.billed.map((entry) => entry.operation);
      expect(billedBefore).toEqual(["lyrics", "generate"]);

      const resumed = await resumeWorkflow(runDir, gatewayOptions(slow));
      expect(resumed.status).toBe("done");
      expect((resumed.outputs?.jingle as { clips: unknown[] }).clips).toHaveLength(2);
      expect(slow.stats().keys[0]!.billed.map((entry) => entry.operation)).toEqual(billedBefore);
      expect(resumed.cost.totalYuan).toBeCloseTo(2.2, 6);
    } finally {
      await slow.close();
    }
  });
});

function keyOf(runId: string, stepKey: string): RegExp {
  return new RegExp(`^${runId}:${stepKey.replace(/[[\].]/g, "\\$&")}:[0-9a-f]{16}$`);
}

function useGatewayConfigured() {
  return import("../src/server/index.js").then(({ startLocalGateway }) =>
    startLocalGateway({
      config: { faults: { seed: 1, latencyMs: 0, models: { "alpha-opus-4-8": { errorRate: 1, status: 503 } } } },
    }),
  );
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
