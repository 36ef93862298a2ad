// One owner per run directory: a live owner's lock refuses a second process (run_dir_taken, exit 2),
// a dead owner's lock is taken over, and two resumes raced on one directory leave one clean journal.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/index.js";
import { parseWorkflow, readJournal, resumeWorkflow, runWorkflow } from "../src/workflow/index.js";
import { LOCK_FILE, RunDirLock } from "../src/workflow/run/run-dir-lock.js";
import { describeRun } from "../src/workflow/schedule/list-runs.js";
import { readJson, recordsOf, tempDir } from "./workflow-harness.js";

const BIN = path.join(import.meta.dirname, "..", "bin", "svc-flow.js");
const ITEMS = 12;
const FLOW = `version: 1
defaults: { model: alpha-sonnet-4-6, maxTokens: 32 }
steps:
  - id: lines
    map: [${Array.from({ length: ITEMS }, (_, index) => index).join(", ")}]
    as: n
    concurrency: 2
    steps:
      - id: line
        uses: chat
        with: { prompt: "One line about lantern \${{ n }}." }
`;

let gateway: LocalGateway;
beforeAll(async () => {
  gateway = await startLocalGateway({ config: { faults: { seed: 1, latencyMs: 600, models: {} } } });
});
afterAll(async () => gateway?.close());

interface Child {
  readonly exited: Promise<{ code: number | null; output: string }>;
  kill(): void;
}

function cli(argv: string[]): Child {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, SVC_BASE_URL: gateway.baseURL, SVC_API_KEY: "sk-local-demo" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    exited: new Promise((resolve) => child.once("exit", (code) => resolve({ code, output }))),
    kill: () => child.kill("SIGKILL"),
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("run directory lock", () => {
  it("refuses a second owner while the first lives, with run_dir_taken", async () => {
    const dir = await tempDir();
    const first = await RunDirLock.acquire(dir);
    await expect(RunDirLock.acquire(dir)).rejects.toMatchObject({ code: "run_dir_taken" });
    await first.release();
    const second = await RunDirLock.acquire(dir);
    await second.release();
  });

  it("takes over a lock whose process is gone on this host", async () => {
    const dir = await tempDir();
    // A pid that cannot be alive: above the kernel's pid_max.
    await writeFile(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid: 2 ** 30, host: hostname(), startedAt: new Date().toISOString(), token: "dead" }),
    );
    const lock = await RunDirLock.acquire(dir);
    const held = JSON.parse(await readFile(path.join(dir, LOCK_FILE), "utf8")) as { pid: number; token: string };
    expect(held).toMatchObject({ pid: process.pid, token: lock.owner.token });
    await lock.release();
  });

  it("lets exactly one of many racing takers have a dead owner's directory", async () => {
    const dir = await tempDir();
    await writeFile(
      path.join(dir, LOCK_FILE),
      JSON.stringify({ pid: 2 ** 30, host: hostname(), startedAt: "", token: "dead" }),
    );
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => RunDirLock.acquire(dir)));
    const won = attempts.filter((attempt) => attempt.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(
      attempts
        .filter((attempt) => attempt.status === "rejected")
        .map((attempt) => (attempt as PromiseRejectedResult).reason.code),
    ).toEqual(Array(7).fill("run_dir_taken"));
    await (won[0] as PromiseFulfilledResult<RunDirLock>).value.release();
  });

  it("adds nothing to the journal of a done run that is resumed again", async () => {
    const runDir = path.join(await tempDir(), "run");
    const workflow = parseWorkflow(FLOW.replace(/map: \[.*\]/, "map: [1, 2]"), { fileName: "flow.yaml" });
    // A gateway of its own: the racing test compares the shared gateway's whole bill with its run's cost.
    const own = await startLocalGateway({ config: { faults: { seed: 1, latencyMs: 600, models: {} } } });
    try {
      const options = { gateway: { baseURL: own.baseURL, apiKey: "sk-local-demo" }, notice: () => undefined };
      expect((await runWorkflow(workflow, { ...options, outDir: runDir })).status).toBe("done");
      const before = await readFile(path.join(runDir, "journal.jsonl"), "utf8");
      const again = await resumeWorkflow(runDir, options);
      expect(again.status).toBe("done");
      expect(again.outputs).toHaveProperty("lines");
      expect(await readFile(path.join(runDir, "journal.jsonl"), "utf8")).toBe(before);
    } finally {
      await own.close();
    }
  });

  it("lets one of two racing resumes finish a killed run and refuses the other, journal and bill clean", {
    timeout: 120_000,
  }, async () => {
    const folder = await tempDir("svc-flow-race-");
    const file = path.join(folder, "flow.yaml");
    const runDir = path.join(folder, "run");
    await writeFile(file, FLOW);
    const billed = () => gateway.stats().keys[0]?.billed.length ?? 0;

    const run = cli(["run", file, "--out", runDir]);
    await until(() => billed() >= 3);
    run.kill();
    await run.exited;
    await until(() => gateway.stats().keys[0]?.inFlight === 0);
    expect((await describeRun(runDir))?.state).toBe("interrupted");

    const [one, two] = await Promise.all([cli(["resume", runDir]).exited, cli(["resume", runDir]).exited]);
    const codes = [one.code, two.code].sort();
    expect(codes, `${one.output}\n---\n${two.output}`).toEqual([0, 2]);
    const loser = one.code === 2 ? one : two;
    expect(loser.output).toContain("[run_dir_taken]");
    expect(loser.output).not.toMatch(/\n\s+at /);

    const { records } = await readJournal(path.join(runDir, "journal.jsonl"));
    expect(recordsOf(records, "run-finished")).toHaveLength(1);
    expect(recordsOf(records, "run-resumed")).toHaveLength(1);
    const items = recordsOf(records, "item-finished").map((record) => `${record.key}[${record.index}]`);
    expect(new Set(items).size).toBe(items.length);
    expect(items).toHaveLength(ITEMS);
    // A call billed but not journaled at the kill is replayed once (recorded at 0), never counted twice.
    const requestIds = recordsOf(records, "cost")
      .filter((record) => record.entry.alreadyRecorded !== true)
      .map((record) => record.entry.requestId);
    expect(new Set(requestIds).size).toBe(requestIds.length);
    const cost = (await readJson(runDir, "cost.json")) as { totalYuan: number };
    expect(cost.totalYuan).toBeCloseTo(gateway.stats().billedYuan, 6);
    expect((await describeRun(runDir))?.state).toBe("done");
  });
});
