import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { resumeWorkflow } from "../src/workflow/run/resume-workflow.js";
import { gatewayEnv, runCli, startCli } from "./cli-harness.js";

let dir: string;
let gateway: LocalGateway | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-flow-schedule-cli-"));
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await rm(dir, { recursive: true, force: true });
});

const WORKFLOW = `version: 1
name: tick
schedule: { cron: "* * * * * *", timezone: "Europe/Paris", overlap: skip }
steps:
  - id: hello
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "Say hi to the scheduler.", maxTokens: 8 }
`;

async function until(test: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error("Timed out waiting for the scheduler.");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function start(argv: string[], baseURL: string) {
  return startCli(argv, { env: gatewayEnv(baseURL, "sk-local-demo"), cwd: dir });
}

describe("svc-flow schedule", () => {
  it("fires every second, each firing a normal run with its own directory and budget, and stops with exit 0", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "tick.yaml"), WORKFLOW);
    const run = start(["schedule", "tick.yaml", "--runs", "out", "--budget", "1"], gateway.baseURL);
    await until(() => (run.stdout.text.match(/tick: done/g) ?? []).length >= 2);
    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.stdout.text).toMatch(/tick: cron "\* \* \* \* \* \*" \(Europe\/Paris\), overlap skip/);
    expect(run.stdout.text).toMatch(/stopped: \d+ run\(s\) started/);

    const runDirs = (await readdir(join(dir, "out"))).filter((name) => !name.startsWith("."));
    expect(runDirs.length).toBeGreaterThanOrEqual(2);
    for (const name of runDirs) expect(name).toMatch(/^\d{8}-\d{6}-tick$/);
    const first = join(dir, "out", runDirs.sort()[0]!);
    expect((await readdir(first)).sort()).toEqual(
      expect.arrayContaining(["cost.json", "journal.jsonl", "outputs.json", "workflow.yaml"]),
    );
    const cost = JSON.parse(await readFile(join(first, "cost.json"), "utf8")) as {
      totalYuan: number;
      budget?: { maxYuan: number };
    };
    expect(cost.budget?.maxYuan).toBe(1);
    expect(cost.totalYuan).toBeGreaterThan(0);
    const state = JSON.parse(await readFile(join(dir, "out", ".schedule-state.json"), "utf8")) as {
      jobs: Record<string, unknown>;
    };
    expect(Object.keys(state.jobs)).toEqual(["tick"]);

    const listing = start(["runs", "--dir", "out", "--json"], gateway.baseURL);
    expect(await listing.exit).toBe(0);
    const runs = JSON.parse(listing.stdout.text) as { name: string; state: string; costYuan: number }[];
    expect(runs.length).toBe(runDirs.length);
    expect(runs.filter((listed) => listed.state === "done").length).toBeGreaterThanOrEqual(2);
    expect(runs[0]).toMatchObject({ name: "tick" });
    expect(runs.every((listed) => listed.state !== "done" || listed.costYuan > 0)).toBe(true);
  });

  it("on stop lets the run in flight journal and stop resumably, then resume finishes it", async () => {
    gateway = await startLocalGateway({ port: 0, config: { faults: { seed: 1, latencyMs: 1500 } } });
    await writeFile(join(dir, "tick.yaml"), WORKFLOW);
    const run = start(["schedule", "tick.yaml", "--runs", "out"], gateway.baseURL);
    await until(() => run.stdout.text.includes("tick: started"));
    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.stdout.text).toMatch(/stopping: no new firings; waiting for 1 run\(s\)/);
    expect(run.stdout.text).toMatch(/tick: stopped/);

    const [name] = (await readdir(join(dir, "out"))).filter((entry) => !entry.startsWith("."));
    const runDir = join(dir, "out", name!);
    const lines = (await readFile(join(runDir, "journal.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; status?: string });
    expect(lines.at(-1)).toMatchObject({ type: "run-finished", status: "stopped" });

    const listing = start(["runs", "--dir", "out"], gateway.baseURL);
    expect(await listing.exit).toBe(0);
    expect(listing.stdout.text).toMatch(/tick\s+stopped/);

    const resumed = await resumeWorkflow(runDir, { gateway: { baseURL: gateway.baseURL, apiKey: "sk-local-demo" } });
    expect(resumed.status).toBe("done");
  });

  it("offline, gives each firing a local gateway kept in its run directory, so resume finishes a stopped music job", {
    timeout: 60_000,
  }, async () => {
    const { SVC_BASE_URL: _url, SVC_API_KEY: _key, ...offline } = process.env;
    await writeFile(
      join(dir, "jingle.yaml"),
      `version: 1
name: jingle
schedule: { cron: "* * * * * *", overlap: skip }
budget: { maxYuan: 5 }
steps:
  - id: jingle
    uses: music
    with: { prompt: "A lantern jingle", instrumental: true }
`,
    );
    const run = startCli(["schedule", "jingle.yaml", "--runs", "out"], { env: offline, cwd: dir });
    const runDir = async () => {
      const [name] = (await readdir(join(dir, "out")).catch(() => [])).filter((entry) => !entry.startsWith("."));
      return name === undefined ? undefined : join(dir, "out", name);
    };
    let journal = "";
    await until(() => journal.includes('"musicJob"'));
    async function until(test: () => boolean): Promise<void> {
      for (let tries = 0; !test(); tries++) {
        if (tries > 300) throw new Error("Timed out waiting for the music job to be journaled.");
        await new Promise((resolve) => setTimeout(resolve, 50));
        const folder = await runDir();
        if (folder !== undefined) journal = await readFile(join(folder, "journal.jsonl"), "utf8").catch(() => "");
      }
    }
    run.stop();
    expect(await run.exit).toBe(0);
    expect(run.stderr.text).toMatch(/using a local gateway with simulated models/);
    const firing = (await runDir())!;
    expect(await readdir(firing)).toContain("gateway-state.jsonl");

    const resumed = await runCli(["resume", firing], { env: offline, cwd: dir });
    // Word bounds: the run directory's name holds the time, which may contain "404".
    expect(resumed.stderr.text).not.toMatch(/\b404\b|not found/i);
    expect(resumed.code).toBe(0);
    const outputs = JSON.parse(await readFile(join(firing, "outputs.json"), "utf8")) as Record<string, unknown>;
    expect(JSON.stringify(outputs)).toMatch(/"audioUrl"|"artifact"/);
  });

  it("refuses a workflow without schedule:, naming the fix (exit 2)", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "once.yaml"), WORKFLOW.replace(/^schedule:.*\n/m, ""));
    const run = start(["schedule", "once.yaml"], gateway.baseURL);
    expect(await run.exit).toBe(2);
    expect(run.stderr.text).toMatch(/has no schedule:\. Add e\.g\. schedule: \{ cron:/);
  });

  it("refuses a bad cron or time zone before anything runs (exit 2)", async () => {
    gateway = await startLocalGateway({ port: 0 });
    await writeFile(join(dir, "bad.yaml"), WORKFLOW.replace('timezone: "Europe/Paris"', 'timezone: "Mars/Base"'));
    const run = start(["schedule", "bad.yaml"], gateway.baseURL);
    expect(await run.exit).toBe(2);
    expect(run.stderr.text).toMatch(/schedule\.timezone "Mars\/Base" is not an IANA time zone/);
  });
});
