// Approval steps in distributed items: an item waits in Redis (not failed), the run ends waiting (exit 3),
// `svc-flow approve RUN_DIR STEP --item N --redis URL` puts the item back on the workers, and it finishes
// from where it stopped without paying for its earlier calls again, even after a kill -9 of its worker.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { startLocalGateway, type LocalGateway } from "../src/server/start-local-gateway.js";
import { QueueRunner } from "../src/workflow/distributed/queue-runner.js";
import type { StoredResult } from "../src/workflow/distributed/run-store.js";
import { gatewayEnv, runCli } from "./cli-harness.js";
import { billedChats, startWorkerProcess } from "./distributed-harness.js";
import { findRedisServer, startRedisServer, type RedisServer } from "./redis-server.js";

const binary = findRedisServer();
if (binary === undefined && process.env.CI === "true")
  throw new Error("redis-server is not installed; CI must install it (apt-get install redis-server).");

const KEY = "sk-dist-approval";
// A paid line before the question and another after it, on a different model so the bill tells them apart.
const FLOW = `version: 1
name: signs
inputs:
  row: { type: items }
steps:
  - id: line
    uses: chat
    with: { model: alpha-sonnet-4-6, prompt: "One line for sign \${{ inputs.row.n }}", maxTokens: 16 }
  - id: check
    uses: approval
    with: { prompt: "Print sign \${{ inputs.row.n }}?", show: "\${{ steps.line.output.text }}" }
  - id: print
    uses: chat
    with: { model: beta-4o-mini, prompt: "Print: \${{ steps.line.output.text }}", maxTokens: 8 }
outputs:
  n: \${{ inputs.row.n }}
  note: \${{ steps.check.output.note }}
`;

let dir: string;
let redis: RedisServer;
let gateway: LocalGateway;

beforeAll(async () => {
  if (binary === undefined) return;
  dir = await mkdtemp(join(tmpdir(), "svc-flow-dist-approval-"));
  redis = await startRedisServer(binary);
  gateway = await startLocalGateway({ port: 0, config: { keys: [{ key: KEY, concurrency: 64 }] } });
});
afterAll(async () => {
  await gateway?.close();
  await redis?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function worker(): Promise<ChildProcess> {
  const child = await startWorkerProcess(redis.url, gateway, KEY, { artifactsDir: join(dir, "shared"), lockMs: 2000 });
  onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")));
  return child;
}

async function folderWithRows(name: string): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "flow.yaml"), FLOW);
  await writeFile(join(folder, "rows.jsonl"), '{"n":0}\n{"n":1}\n');
  return folder;
}

function cliIn(folder: string) {
  const env = { ...gatewayEnv(gateway.baseURL, KEY), SVC_FLOW_USER: "ana" };
  return (argv: string[]) => runCli(argv, { env, cwd: folder });
}

async function rows(runDir: string): Promise<StoredResult[]> {
  const text = await readFile(join(runDir, "outputs.jsonl"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as StoredResult);
}

function billedBy(model: string): number {
  return billedChats(gateway).filter((entry) => entry.model === model).length;
}

describe.skipIf(binary === undefined)("approval steps in distributed items", () => {
  it("waits per item in Redis, survives a kill -9 of the worker, and finishes each answered item without paying twice", async () => {
    const folder = await folderWithRows("approve");
    const cli = cliIn(folder);
    const first = await worker();
    const before = billedBy("alpha-sonnet-4-6");
    const printed = billedBy("beta-4o-mini");

    const run = await cli(["run", "flow.yaml", "--input", "row=rows.jsonl", "--redis", redis.url, "--out", "run"]);
    expect(run.code).toBe(3);
    expect(run.stdout.text).toContain("Waiting for a decision.");
    expect(run.stdout.text).toContain("items[1].check: Print sign 1?");
    expect(run.stdout.text).toContain("Shows: ");
    expect(run.stdout.text).toContain(`svc-flow approve run check --item 0 --redis URL`);
    expect(await rows(join(folder, "run"))).toEqual([]);
    const listed = await cli(["runs", "--dir", "."]);
    expect(listed.stdout.text).toContain("waiting for items[0].check, items[1].check");
    expect(billedBy("alpha-sonnet-4-6") - before).toBe(2);

    // Nothing of a waiting item lives in its worker: a new worker finishes it.
    first.kill("SIGKILL");
    await once(first, "exit");
    await worker();

    // Resumed on this machine, its items would run (and be paid for) here: refused, naming the way.
    const local = await cli(["resume", "run"]);
    expect(local.code).toBe(2);
    expect(local.stderr.text).toMatch(
      /is a distributed run \(.+\): resume it on its workers with `svc-flow resume .+ --redis URL`/,
    );
    expect(billedBy("alpha-sonnet-4-6") - before).toBe(2);

    const one = await cli(["approve", "run", "check", "--item", "1", "--note", "one ok", "--redis", redis.url]);
    expect(one.stderr.text).toContain("Approved items[1].check (by ana).");
    expect(one.code).toBe(3);
    expect(await rows(join(folder, "run"))).toMatchObject([
      { index: 1, state: "done", output: { n: 1, note: "one ok" } },
    ]);
    expect((await cli(["runs", "--dir", "."])).stdout.text).toContain("waiting for items[0].check");

    const other = await cli(["approve", "run", "check", "--item", "0", "--note", "zero ok", "--redis", redis.url]);
    expect(other.code).toBe(0);
    expect(await rows(join(folder, "run"))).toMatchObject([
      { index: 0, state: "done", output: { n: 0, note: "zero ok" } },
      { index: 1, state: "done", output: { n: 1, note: "one ok" } },
    ]);
    // The lines were paid for before the items waited: answering paid only for the steps after the question.
    expect(billedBy("alpha-sonnet-4-6") - before).toBe(2);
    expect(billedBy("beta-4o-mini") - printed).toBe(2);
    const finished = (await readFile(join(folder, "run", "journal.jsonl"), "utf8")).trim().split("\n").at(-1);
    expect(JSON.parse(finished!)).toMatchObject({ type: "run-finished", status: "done" });
  }, 60_000);

  it("writes the run's report.html with each item's result, cost and question, and runs counts its items", async () => {
    const folder = await folderWithRows("report");
    const cli = cliIn(folder);
    await worker();
    const run = await cli(["run", "flow.yaml", "--input", "row=rows.jsonl", "--redis", redis.url, "--out", "run"]);
    expect(run.code).toBe(3);
    const waiting = await readFile(join(folder, "run", "report.html"), "utf8");
    expect(waiting).toContain("Waiting for a decision.");
    expect(waiting).toContain("Print sign 1?");
    expect(waiting).toContain("run check --item 1 --redis URL");
    expect((await cli(["runs", "--dir", "."])).stdout.text).toMatch(/0\/2 +/);

    expect(
      (await cli(["approve", "run", "check", "--item", "1", "--note", "looks right", "--redis", redis.url])).code,
    ).toBe(3);
    expect(
      (await cli(["approve", "run", "check", "--item", "0", "--reject", "--note", "too loud", "--redis", redis.url]))
        .code,
    ).toBe(1);
    const report = await readFile(join(folder, "run", "report.html"), "utf8");
    // The question, what it showed and each answer, per item.
    expect(report).toContain("items[0].check");
    expect(report).toContain("Print sign 0?");
    expect(report).toMatch(/Approved<\/strong> by ana[^<]*: looks right/);
    expect(report).toMatch(/Rejected<\/strong> by ana[^<]*: too loud/);
    // The rows with their results, and the calls' cost by model.
    expect(report).toContain("approval_rejected");
    expect(report).toContain("alpha-sonnet-4-6");
    expect(report).toContain("beta-4o-mini");
    expect((await cli(["runs", "--dir", "."])).stdout.text).toContain("1/2 (1 failed)");
  }, 60_000);

  it("fails a rejected item with approval_rejected, and an answer recorded with --no-resume runs on resume", async () => {
    const folder = await folderWithRows("reject");
    const cli = cliIn(folder);
    await worker();
    const run = await cli(["run", "flow.yaml", "--input", "row=rows.jsonl", "--redis", redis.url, "--out", "run"]);
    expect(run.code).toBe(3);
    const runId = JSON.parse(await readFile(join(folder, "run", "distributed.json"), "utf8")).runId as string;

    const rejected = await cli([
      "approve",
      "run",
      "check",
      "--item",
      "0",
      "--reject",
      "--note",
      "no",
      "--redis",
      redis.url,
    ]);
    expect(rejected.code).toBe(3);
    expect(await rows(join(folder, "run"))).toMatchObject([
      { index: 0, state: "failed", error: { code: "approval_rejected" } },
    ]);

    // Only item 1 waits now, so the step's id names it.
    const recorded = await cli(["approve", "run", "check", "--no-resume", "--redis", redis.url]);
    expect(recorded.code).toBe(0);
    expect(recorded.stdout.text).toContain(`svc-flow resume ${runId} --redis URL`);
    const again = await cli(["approve", "run", "check", "--item", "1", "--redis", redis.url]);
    expect(again.code).not.toBe(0);
    expect(again.stderr.text).toContain("Item 1 of run");

    const resumed = await cli(["resume", runId, "--redis", redis.url, "--out", "run"]);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr.text).toContain("Finished with 1 failed item(s)");
    // Resume would replay the rejection: the run says who rejected it, with the note, and how to ask again.
    expect(resumed.stderr.text).toContain(
      'item 0: Step "items[0].check" did not get its approval: it was rejected by ana: no.',
    );
    expect(resumed.stderr.text).toContain("start a new run");
    expect(resumed.stderr.text).not.toContain("svc-flow resume");
    expect(await rows(join(folder, "run"))).toMatchObject([
      { index: 0, state: "failed", error: { code: "approval_rejected" } },
      { index: 1, state: "done", output: { n: 1 } },
    ]);
  }, 60_000);

  it("shows an answer recorded with --no-resume in the run directory at once, the other item still waiting", async () => {
    const folder = await folderWithRows("no-resume");
    const cli = cliIn(folder);
    await worker();
    const run = await cli(["run", "flow.yaml", "--input", "row=rows.jsonl", "--redis", redis.url, "--out", "run"]);
    expect(run.code).toBe(3);

    const recorded = await cli(["approve", "run", "check", "--item", "1", "--no-resume", "--redis", redis.url]);
    expect(recorded.code).toBe(0);
    const listed = (await cli(["runs", "--dir", "."])).stdout.text;
    expect(listed).toContain("waiting for items[0].check");
    expect(listed).not.toContain("items[1].check");
    const journal = await readFile(join(folder, "run", "journal.jsonl"), "utf8");
    expect(journal).toMatch(/"type":"approval-decided","key":"items\[1\]\.check"/);

    // With no question left, the run waits for resume, which finishes the answered item.
    expect((await cli(["approve", "run", "check", "--item", "0", "--no-resume", "--redis", redis.url])).code).toBe(0);
    expect((await cli(["runs", "--dir", "."])).stdout.text).not.toContain("waiting");
    const runId = JSON.parse(await readFile(join(folder, "run", "distributed.json"), "utf8")).runId as string;
    expect((await cli(["resume", runId, "--redis", redis.url, "--out", "run"])).code).toBe(0);
    expect((await rows(join(folder, "run"))).map((row) => row.state)).toEqual(["done", "done"]);
  }, 60_000);

  it("decides an item by its onTimeout when the run is resumed after the timeout passed", async () => {
    const folder = await folderWithRows("timeout");
    await writeFile(
      join(folder, "flow.yaml"),
      FLOW.replace('show: "${{ steps.line.output.text }}"', 'timeout: "1ms", onTimeout: approve'),
    );
    const cli = cliIn(folder);
    await worker();
    const run = await cli(["run", "flow.yaml", "--input", "row=rows.jsonl", "--redis", redis.url, "--out", "run"]);
    expect(run.code).toBe(3);
    const runId = JSON.parse(await readFile(join(folder, "run", "distributed.json"), "utf8")).runId as string;

    const resumed = await cli(["resume", runId, "--redis", redis.url, "--out", "run"]);
    expect(resumed.code).toBe(0);
    const decided = (await rows(join(folder, "run"))).map((row) => row.state);
    expect(decided).toEqual(["done", "done"]);
    const journal = await readFile(join(folder, "run", "journal.jsonl"), "utf8");
    expect(journal.match(/"type":"approval-decided"[^\n]*"by":"timeout"/g)).toHaveLength(2);
  }, 60_000);

  it("stops an item's agent before a tool call that needs approval, and runs the call once approved without paying its turn again", async () => {
    const folder = await folderWithRows("agent");
    await writeFile(join(folder, "rows.jsonl"), '{"n":0}\n');
    await writeFile(
      join(folder, "flow.yaml"),
      `version: 1
name: notes
inputs:
  row: { type: items }
steps:
  - id: notes
    uses: agent
    with:
      model: alpha-sonnet-4-6
      maxTokens: 300
      tools: [calculator, write_file]
      approve: [write_file]
      prompt: "Compute 17 * 23 and save the result to result.md."
`,
    );
    const cli = cliIn(folder);
    await worker();
    const before = billedBy("alpha-sonnet-4-6");
    const run = await cli(["run", "flow.yaml", "--input", "row=rows.jsonl", "--redis", redis.url, "--out", "run"]);
    expect(run.code).toBe(3);
    expect(run.stdout.text).toContain("Let items[0].notes call write_file?");
    expect(run.stdout.text).toContain("svc-flow approve run notes --item 0 --redis URL");
    expect(billedBy("alpha-sonnet-4-6") - before).toBe(1);

    const approved = await cli(["approve", "run", "notes", "--item", "0", "--redis", redis.url]);
    expect(approved.code).toBe(0);
    const runId = JSON.parse(await readFile(join(folder, "run", "distributed.json"), "utf8")).runId as string;
    // The approved call ran on the worker: the file is in the run's shared workspace.
    await readFile(join(dir, "shared", runId, "workspace", "result.md"), "utf8");
    const [row] = await rows(join(folder, "run"));
    const calls = (row?.output as { notes: { toolCalls: { name: string; failed: boolean }[] } }).notes.toolCalls;
    expect(calls.find((call) => call.name === "write_file")).toMatchObject({ failed: false });
    // The turn that asked for the call came from the item's journal: only the answering turn was paid.
    expect(billedBy("alpha-sonnet-4-6") - before).toBe(2);
  }, 60_000);

  it("ends a scheduled firing on the workers waiting, with its run directory listing the questions", async () => {
    const folder = await folderWithRows("scheduled");
    await writeFile(
      join(folder, "flow.yaml"),
      FLOW.replace("row: { type: items }", "row: { type: items, default: rows.jsonl }"),
    );
    await worker();
    const runDir = join(folder, "firing");
    const outcome = await new QueueRunner(redis.url).run(
      { name: "signs", file: join(folder, "flow.yaml"), scheduledAtMs: Date.now(), runDir },
      { signal: new AbortController().signal },
    );
    expect(outcome).toMatchObject({ state: "waiting", runDir });
    expect(outcome.error).toBeUndefined();
    const listed = await cliIn(folder)(["runs", "--dir", "."]);
    expect(listed.stdout.text).toContain("waiting for items[0].check, items[1].check");
  }, 60_000);
});
