// Approval steps through a real `svc-flow` process: the run ends waiting (exit 3) with the question
// and the command that answers it; `svc-flow approve` journals the answer and resumes the run.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readJournal } from "../src/workflow/index.js";
import { startLocalGateway } from "../src/server/index.js";
import { readJson, recordsOf, tempDir, useGateway } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const gateway = useGateway({ faults: { seed: 1, latencyMs: 0, models: {} } });

const FLOW = `version: 1
defaults: { model: alpha-sonnet-4-6, maxTokens: 64 }
steps:
  - id: total
    uses: tool
    with: { tool: calculator, input: { expression: "6 * 7" } }
  - id: sign-off
    uses: approval
    with:
      prompt: "Print \${{ steps.total.output }} posters?"
      show: \${{ steps.total.output }}
      input: { type: object, properties: { copies: { type: integer, minimum: 1 } }, required: [copies] }
  - id: print
    uses: tool
    needs: [sign-off]
    with: { tool: calculator, input: { expression: "1 + 1" } }
  - id: tagline
    uses: chat
    with: { prompt: "One tagline for a lantern." }
outputs:
  decision: \${{ steps.sign-off.output }}
  printed: \${{ steps.print.output }}
  tagline: \${{ steps.tagline.output.text }}
`;

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI as a child process; with `killWhen`, SIGKILLs it once the predicate holds (checked every few ms). */
async function cli(
  argv: string[],
  cwd: string,
  killWhen?: () => Promise<boolean>,
  baseURL = gateway.current.baseURL,
): Promise<Exit & { killed: boolean }> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { ...process.env, SVC_BASE_URL: baseURL, SVC_API_KEY: "sk-local-demo", SVC_FLOW_USER: "ana" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => ((exited = true), resolve(code))));
  if (killWhen !== undefined) {
    while (!exited) {
      if (await killWhen()) {
        child.kill("SIGKILL");
        await exit;
        return { code: null, stdout, stderr, killed: true };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  return { code: await exit, stdout, stderr, killed: false };
}

async function waitingRun(): Promise<{ folder: string; runDir: string; first: Exit }> {
  const folder = await tempDir("svc-flow-approval-");
  await writeFile(path.join(folder, "flow.yaml"), FLOW);
  const first = await cli(["run", "flow.yaml", "--out", "run"], folder);
  return { folder, runDir: path.join(folder, "run"), first };
}

describe("approval steps through the CLI", () => {
  it("ends a run waiting for a decision with exit 3, the question printed and the command that answers it", {
    timeout: 60_000,
  }, async () => {
    const { runDir, first } = await waitingRun();
    expect(first.code).toBe(3);
    expect(first.stdout).toContain("Print 42 posters?");
    expect(first.stdout).toContain("svc-flow approve run sign-off");
    // The independent branch ran to its end before the run stopped to wait; the dependent one did not start.
    const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
    expect(
      recordsOf(records, "step-finished")
        .map((record) => record.key)
        .sort(),
    ).toEqual(["tagline", "total"]);
    expect(recordsOf(records, "run-finished").at(-1)?.status).toBe("waiting");
  });

  it("finishes the run once approved with a note, and the output holds the note and the reply", {
    timeout: 60_000,
  }, async () => {
    const { folder } = await waitingRun();
    const answered = await cli(["approve", "run", "sign-off", "--note", "ship it", "--input", '{"copies": 3}'], folder);
    expect(answered.stderr).toContain("Approved sign-off (by ana)");
    expect(answered.code).toBe(0);
    const outputs = (await readJson(path.join(folder, "run"), "outputs.json")) as {
      decision: Record<string, unknown>;
      printed: unknown;
    };
    expect(outputs.decision).toMatchObject({ approved: true, note: "ship it", input: { copies: 3 }, by: "ana" });
    expect(outputs.printed).toBe("2");
  });

  it("ends the run failed with the reason when rejected", { timeout: 60_000 }, async () => {
    const { folder } = await waitingRun();
    const answered = await cli(["approve", "run", "sign-off", "--reject", "--note", "too dark"], folder);
    expect(answered.code).toBe(1);
    expect(answered.stderr).toContain("approval_rejected");
    expect(answered.stderr).toContain("too dark");
    const report = await readFile(path.join(folder, "run", "report.html"), "utf8");
    expect(report).toContain("Print 42 posters?");
    expect(report).toContain("Rejected");
  });

  it("is answered and finished after the run was killed -9 while it waited for a slower branch", {
    timeout: 90_000,
  }, async () => {
    const folder = await tempDir("svc-flow-approval-kill-");
    await writeFile(path.join(folder, "flow.yaml"), FLOW);
    // A slow gateway keeps the independent chat branch (and so the process) going after the question is journaled.
    const slow = await startLocalGateway({ config: { faults: { seed: 1, latencyMs: 2000, models: {} } } });
    try {
      const journal = path.join(folder, "run", "journal.jsonl");
      const asked = async () => (await readFile(journal, "utf8").catch(() => "")).includes('"approval-requested"');
      const killed = await cli(["run", "flow.yaml", "--out", "run"], folder, asked, slow.baseURL);
      expect(killed.killed).toBe(true);
      const answered = await cli(
        ["approve", "run", "sign-off", "--note", "after the crash", "--input", '{"copies": 1}'],
        folder,
        undefined,
        slow.baseURL,
      );
      expect(answered.code).toBe(0);
      const outputs = (await readJson(path.join(folder, "run"), "outputs.json")) as {
        decision: { note: string };
        tagline: string;
      };
      expect(outputs.decision.note).toBe("after the crash");
      expect(outputs.tagline.length).toBeGreaterThan(0);
    } finally {
      await slow.close();
    }
  });

  it("exits 2 with a clear message for an unknown step, a reply that misses the schema, and a run not waiting", {
    timeout: 90_000,
  }, async () => {
    const { folder } = await waitingRun();
    const unknown = await cli(["approve", "run", "sign-of"], folder);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("[unknown_step]");
    expect(unknown.stderr).toContain("It waits on: sign-off");

    const invalid = await cli(["approve", "run", "sign-off", "--input", '{"copies": 0}'], folder);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("[invalid_approval_input]");
    expect(invalid.stderr).toContain("copies");

    const notJson = await cli(["approve", "run", "sign-off", "--input", "copies=2"], folder);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("the JSON reply the step asks for");
    expect(notJson.stderr).not.toContain('"note"');

    expect((await cli(["approve", "run", "sign-off", "--input", '{"copies": 2}'], folder)).code).toBe(0);
    const again = await cli(["approve", "run", "sign-off"], folder);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("[not_waiting]");
  });
});
