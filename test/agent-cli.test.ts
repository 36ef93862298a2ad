import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { startAgentHarness, type AgentHarness } from "./agent-harness.js";

let harness: AgentHarness;

beforeAll(async () => {
  harness = await startAgentHarness();
});
afterAll(async () => {
  await harness.close();
});

const FACTS = { "facts.txt": "Lumo is a solar lantern made in Kyoto.\n" };
const TASK = "Open facts.txt and tell me where the lantern is made.";

class Capture extends Writable {
  text = "";
  constructor(readonly isTTY = false) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function svcFlow(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; tty?: boolean } = {}) {
  const stdout = new Capture();
  const stderr = new Capture(options.tty ?? false);
  const cwd = options.cwd ?? (await harness.workspace(FACTS));
  const env = options.env ?? { SVC_BASE_URL: harness.connection.baseURL, SVC_API_KEY: harness.connection.apiKey };
  // The agent's files sit in the test folder: name it as the workspace unless the test names one.
  const argv =
    args[0] === "agent" && args[1] !== "--help" && !args.includes("--workspace") ? [...args, "--workspace", "."] : args;
  const code = await main(argv, { stdout, stderr, env, cwd, signal: new AbortController().signal });
  return { code, stdout: stdout.text, stderr: stderr.text, cwd };
}

async function runDirOf(cwd: string): Promise<string> {
  const [dir] = await readdir(path.join(cwd, "runs"));
  return path.join(cwd, "runs", dir!);
}

describe("svc-flow agent", () => {
  it("prints the answer on stdout, the steps and cost on stderr, and exits 0", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Kyoto");
    expect(result.stderr).toContain("agent research-assistant model alpha-sonnet-4-6 max-steps 12");
    expect(result.stderr).toContain('step 1 call read_file {"path":"facts.txt"}');
    expect(result.stderr).toMatch(/step 1 result read_file \d+ms: Lumo is a solar lantern made in Kyoto\./);
    expect(result.stderr).toContain("answered after 2 steps");
    expect(result.stderr).toMatch(
      /cost ¥0\.\d{4} over 2 calls; transcript in .*runs\/\d{8}-\d{6}-agent-research-assistant/,
    );
  });

  it("writes transcript.jsonl, transcript.md and cost.json into the run folder", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK, "--out", "my-run"]);
    const dir = path.join(result.cwd, "my-run");
    expect((await readdir(dir)).sort()).toEqual(["cost.json", "transcript.jsonl", "transcript.md"]);
    const lines = (await readFile(path.join(dir, "transcript.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; time: string });
    expect(lines.map((line) => line.type)).toEqual(["start", "model", "tool-call", "tool-result", "model", "answer"]);
    expect(lines.every((line) => !Number.isNaN(Date.parse(line.time)))).toBe(true);
    const markdown = await readFile(path.join(dir, "transcript.md"), "utf8");
    expect(markdown).toContain("# Agent research-assistant");
    expect(markdown).toContain('- **read_file** `{"path":"facts.txt"}`');
    expect(markdown).toMatch(/## Answer\n\n.*Kyoto/);
    const cost = JSON.parse(await readFile(path.join(dir, "cost.json"), "utf8")) as {
      totalYuan: number;
      entries: number;
      byTag: Record<string, Record<string, unknown>>;
    };
    expect(cost.entries).toBe(2);
    expect(cost.totalYuan).toBeGreaterThan(0);
    expect(Object.keys(cost.byTag.run ?? {})).toEqual(["agent-research-assistant"]);
  });

  it("answers with JSON for programs under --json", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK, "--json"]);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as {
      status: string;
      answer: string;
      steps: number;
      toolCalls: unknown[];
      cost: { totalYuan: number };
      runDir: string;
    };
    expect(output).toMatchObject({ status: "answered", steps: 2 });
    expect(output.answer).toContain("Kyoto");
    expect(output.cost.totalYuan).toBeGreaterThan(0);
    expect(result.stderr).not.toContain("step 1");
  });

  it("exits 1 with a clear message when the step limit is reached", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK, "--max-steps", "1"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      "svc-flow agent: Stopped after 1 step without a final answer: step 1 still called read_file",
    );
    const markdown = await readFile(path.join(await runDirOf(result.cwd), "transcript.md"), "utf8");
    expect(markdown).toContain("## Stopped");
  });

  it("exits 1 when the budget is spent, says how to go on, and still writes the transcript and cost", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK, "--budget", "0.01"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Budget exceeded: .* Raise --budget/);
    expect(result.stderr).toContain("[budget_exceeded]");
    const dir = await runDirOf(result.cwd);
    const cost = JSON.parse(await readFile(path.join(dir, "cost.json"), "utf8")) as {
      totalYuan: number;
      budget: { maxYuan: number };
    };
    expect(cost).toMatchObject({ totalYuan: 0, budget: { maxYuan: 0.01 } });
    expect(await readFile(path.join(dir, "transcript.md"), "utf8")).toContain("## Failed");
  });

  it("refuses a wrong key as bad input (exit 2), without a key in the output", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK], {
      env: { SVC_BASE_URL: harness.connection.baseURL, SVC_API_KEY: "sk-wrong-secret" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("[invalid_api_key");
    expect(result.stderr + result.stdout).not.toContain("sk-wrong-secret");
  });

  it.each([
    {
      what: "a wrong key",
      args: [],
      env: () => ({ SVC_BASE_URL: harness.connection.baseURL, SVC_API_KEY: "sk-wrong" }),
    },
    { what: "SVC_API_KEY without SVC_BASE_URL", args: [], env: () => ({ SVC_API_KEY: harness.connection.apiKey }) },
    { what: "an unknown --model", args: ["--model", "alpha-sonet"], env: () => ({}) },
  ])("refuses $what (exit 2) before making its run folder", async ({ args, env }) => {
    const result = await svcFlow(["agent", "research-assistant", TASK, "--out", "run", ...args], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("transcript in");
    expect(await readdir(result.cwd)).not.toContain("run");
  });

  it("uses --workspace for the agent's files, relative to the current folder", async () => {
    const cwd = await harness.workspace({ "data/facts.txt": FACTS["facts.txt"] });
    const result = await svcFlow(["agent", "research-assistant", TASK, "--workspace", "data"], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Kyoto");
    expect(result.stderr).toContain(`workspace ${path.join(cwd, "data")}`);
  });

  it("works in RUN_DIR/workspace when no workspace is named, so nothing is written into the current folder", async () => {
    const cwd = await harness.workspace({});
    const code = await main(
      ["agent", "research-assistant", "Write a short note about lanterns to note.md", "--out", "run"],
      {
        stdout: new Capture(),
        stderr: new Capture(false),
        env: { SVC_BASE_URL: harness.connection.baseURL, SVC_API_KEY: harness.connection.apiKey },
        cwd,
        signal: new AbortController().signal,
      },
    );
    expect(code).toBe(0);
    expect(await readdir(path.join(cwd, "run", "workspace"))).toContain("note.md");
    expect(await readdir(cwd)).not.toContain("note.md");
  });

  it("refuses a task whose data file is not in the workspace, before any call, with exit 2", async () => {
    const result = await svcFlow(["agent", "data-analyst", "What were total unit sales in sales.csv?"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/names sales\.csv, which is not in the workspace .*--workspace/);
    expect(result.stderr).not.toContain("step 1");
  });

  it("starts a local gateway when none is configured, and says so on one line", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK], { env: {} });
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n").filter((line) => line.includes("using a local gateway"))).toHaveLength(1);
  });

  it("shows steps with symbols on a terminal", async () => {
    const result = await svcFlow(["agent", "research-assistant", TASK], { tty: true });
    expect(result.stderr).toContain("▶ research-assistant");
    expect(result.stderr).toContain("→");
    expect(result.stderr).toContain("✓");
  });

  it("keeps the terminal's symbols but leaves out colour when NO_COLOR is set", async () => {
    const env = { SVC_BASE_URL: harness.connection.baseURL, SVC_API_KEY: harness.connection.apiKey, NO_COLOR: "1" };
    const result = await svcFlow(["agent", "research-assistant", TASK], { tty: true, env });
    expect(result.stderr).toContain("▶ research-assistant");
    expect(result.stderr).not.toContain("\x1b[");
  });

  it.each([
    [["agent"], /Name an agent: data-analyst, media-producer, research-assistant/],
    [["agent", "poet", "write"], /Unknown agent "poet"/],
    [["agent", "data-analyst"], /Give the task after the agent's name/],
    [["agent", "data-analyst", "task", "--max-steps", "0"], /Expected --max-steps to be a number >= 1/],
    [["agent", "data-analyst", "task", "--budget", "lots"], /Expected --budget to be a number/],
    [["agent", "data-analyst", "task", "--model", "alpha-sonet"], /Unknown model "alpha-sonet"/],
  ])("exits 2 on bad usage: %j", async (args, message) => {
    const result = await svcFlow(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it("lists the agents in its help", async () => {
    const result = await svcFlow(["agent", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/data-analyst\s+Reads CSV\/JSON files/);
  });
});
