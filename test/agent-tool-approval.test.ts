// Tool approval on agent steps: `approve: [write_file]` stops the run before the call (waiting, exit
// 3, the call shown); `svc-flow approve` answers it and the run resumes from the journaled turns.
import { access, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/index.js";
import { readJournal } from "../src/workflow/index.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { readJson, recordsOf, tempDir, useGateway } from "./workflow-harness.js";

const gateway = useGateway();
const MODEL = "alpha-sonnet-4-6";
// The simulated model calls the calculator and write_file in its first turn, and answers in its second.
const FLOW = `version: 1
defaults: { model: ${MODEL}, maxTokens: 300 }
steps:
  - id: notes
    uses: agent
    with:
      tools: [calculator, write_file]
      approve: [write_file]
      prompt: "Compute 17 * 23 and save the result to result.md."
`;

interface AgentOutput {
  notes: { toolCalls: { name: string; result: string; failed: boolean }[] };
}

async function startWaiting() {
  const folder = await tempDir("svc-flow-tool-approval-");
  await writeFile(path.join(folder, "flow.yaml"), FLOW);
  const env = { ...gatewayEnv(gateway.current.baseURL, "sk-local-demo"), SVC_FLOW_USER: "ana" };
  const run = await runCli(["run", "flow.yaml", "--out", "run"], { env, cwd: folder });
  return { folder, env, run, runDir: path.join(folder, "run") };
}

const modelBills = () => gateway.current.stats().keys[0]!.billed.filter((entry) => entry.model === MODEL).length;

describe("tool approval on an agent step", () => {
  it("stops before the call, exits 3 and shows the tool, its arguments and the command that answers", async () => {
    const { run, runDir } = await startWaiting();

    expect(run.code).toBe(3);
    expect(run.stdout.text).toContain("Let notes call write_file?");
    expect(run.stdout.text).toContain('"path": "result.md"');
    expect(run.stdout.text).toContain("svc-flow approve run notes");
    await expect(access(path.join(runDir, "workspace", "result.md"))).rejects.toThrow();
    const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
    expect(recordsOf(records, "approval-requested")).toMatchObject([
      { id: "notes", toolCall: { step: "notes", turn: 1, name: "write_file", arguments: { path: "result.md" } } },
    ]);
  });

  it("runs the call once approved, resuming from the journaled turn without paying it again", async () => {
    const { folder, env, runDir } = await startWaiting();
    const billedBefore = modelBills();
    const replayedBefore = gateway.current.stats().keys[0]!.requests.replayed;

    const approved = await runCli(["approve", "run", "notes"], { env, cwd: folder });

    expect(approved.code).toBe(0);
    expect(approved.stderr.text).toContain(`Approved notes's call of write_file {"path":"result.md"`);
    expect(await readFile(path.join(runDir, "workspace", "result.md"), "utf8")).not.toBe("");
    const outputs = (await readJson(runDir, "outputs.json")) as AgentOutput;
    expect(outputs.notes.toolCalls.find((call) => call.name === "write_file")).toMatchObject({ failed: false });
    // The resume sent only the second turn: the first came from the journal, not from the gateway's replay.
    expect(modelBills()).toBe(billedBefore + 1);
    expect(gateway.current.stats().keys[0]!.requests.replayed).toBe(replayedBefore);
  });

  it("gives a rejection and its note to the model as the tool's result, and does not run the call", async () => {
    const { folder, env, runDir } = await startWaiting();

    const rejected = await runCli(["approve", "run", "notes", "--reject", "--note", "Save it under notes/ instead"], {
      env,
      cwd: folder,
    });

    expect(rejected.code).toBe(0);
    await expect(access(path.join(runDir, "workspace", "result.md"))).rejects.toThrow();
    const outputs = (await readJson(runDir, "outputs.json")) as AgentOutput;
    const call = outputs.notes.toolCalls.find((toolCall) => toolCall.name === "write_file");
    expect(call?.failed).toBe(true);
    expect(call?.result).toContain("The user (ana) rejected this call; it was not run: Save it under notes/ instead.");
  });

  it("refuses an approve list naming a tool the agent does not have", () => {
    expect(() =>
      defineAgent({
        name: "writer",
        description: "Writes notes.",
        system: "Write notes.",
        model: MODEL,
        tools: ["write_file"],
        approve: ["generate_image"],
      }),
    ).toThrow(/asks approval for generate_image, which is not one of its tools/);
  });
});

describe("approve: at load", () => {
  it("names file, line and path when an inline agent's approve: lists a tool it does not have", async () => {
    const folder = await tempDir("svc-flow-tool-approval-");
    await writeFile(path.join(folder, "flow.yaml"), FLOW.replace("approve: [write_file]", "approve: [write_fil]"));
    const env = gatewayEnv(gateway.current.baseURL, "sk-local-demo");

    const checked = await runCli(["validate", "flow.yaml"], { env, cwd: folder });

    expect(checked.code).toBe(2);
    expect(checked.stderr.text).toMatch(
      /flow\.yaml:8:\d+ steps\[0\]\.with\.approve\[0\].*"write_fil", which is not in this step's tools/s,
    );
  });
});
