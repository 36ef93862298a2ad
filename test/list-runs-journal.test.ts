// `svc-flow runs` reads a journal a chunk at a time and leniently: lines split across the 1 MiB reads are read
// whole, and a damaged line or a torn tail leaves out only what it would have said.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recordApproval } from "../src/workflow/approval/record-approval.js";
import { DISTRIBUTED_FILE } from "../src/workflow/distributed/distributed-file.js";
import { LOCK_FILE } from "../src/workflow/run/run-dir-lock.js";
import { describeRun } from "../src/workflow/schedule/list-runs.js";
import { POSTER_CHECKS, readJson, runText, useGateway } from "./workflow-harness.js";

const gateway = useGateway();

const READ_BYTES = 1024 * 1024;

const LINES = `version: 1
name: lantern-lines
defaults: { model: alpha-sonnet-4-6, maxTokens: 16 }
steps:
  - id: lines
    map: [1, 2, 3]
    steps:
      - id: line
        uses: chat
        with: { prompt: "One line about lantern \${{ item }}." }
`;

// A line no reader of `runs` looks at, `bytes` long with its newline.
function filler(bytes: number): string {
  const record = { type: "step-finished", key: "padding", output: "" };
  return `${JSON.stringify({ ...record, output: "x".repeat(bytes - JSON.stringify(record).length - 1) })}\n`;
}

/**
 * The journal's lines with filler after the first, so that the first line matching `marker` starts 40 bytes
 * before the end of the first read and ends in the second; then a damaged line and a torn tail.
 */
async function spreadAcrossReads(runDir: string, marker: string, damaged: string, torn: string): Promise<void> {
  const file = path.join(runDir, "journal.jsonl");
  const [first, ...rest] = (await readFile(file, "utf8")).split("\n").slice(0, -1);
  const at = rest.findIndex((line) => line.includes(marker));
  expect(at).toBeGreaterThanOrEqual(0);
  const before = [first, ...rest.slice(0, at)].map((line) => `${line}\n`).join("");
  const gap = READ_BYTES - 40 - Buffer.byteLength(before);
  const padding = filler(gap - 300_000) + filler(300_000);
  const after = rest.slice(at).map((line) => `${line}\n`);
  await writeFile(file, [before, padding, after[0], damaged, ...after.slice(1), torn].join(""));
  expect(Buffer.byteLength(before + padding)).toBe(READ_BYTES - 40);
}

describe("svc-flow runs on a journal bigger than one read", () => {
  it("shows a waiting run's open question when its line is split between reads, past a damaged line and a torn answer", async () => {
    const { result } = await runText(gateway.current, POSTER_CHECKS);
    expect(result.status).toBe("waiting");
    await recordApproval(result.runDir, { step: "check", item: 0, approved: true });
    await spreadAcrossReads(
      result.runDir,
      '"key":"posters[1].check"',
      '{"type":"approval-decided","key":"posters[1].check","appro\n',
      '{"type":"approval-decided","key":"posters[1].check","approved":true,"at":"2026-',
    );

    const listed = await describeRun(result.runDir);
    expect(listed?.state).toBe("waiting");
    expect(listed?.waitingFor).toEqual(["posters[1].check"]);
  });

  it("adds up a killed run's bills when a bill's line is split between reads, leaving out a damaged line and a torn tail", async () => {
    const { result } = await runText(gateway.current, LINES);
    const billed = (await readJson(result.runDir, "cost.json")) as { totalYuan: number };
    expect(billed.totalYuan).toBeGreaterThan(0);
    // As a kill leaves it: no cost.json, no run-finished line.
    await rm(path.join(result.runDir, "cost.json"));
    const file = path.join(result.runDir, "journal.jsonl");
    await writeFile(file, (await readFile(file, "utf8")).replace(/\{"type":"run-finished".*\n/, ""));
    await spreadAcrossReads(
      result.runDir,
      '"type":"cost"',
      '{"type":"cost","entry":{"yuan":100,\n',
      '{"type":"cost","entry":{"yuan":100,"kind":"chat"',
    );

    const listed = await describeRun(result.runDir);
    expect(listed?.costYuan).toBe(billed.totalYuan);
    expect(listed?.unpriced).toBe(false);
  });

  it("takes a distributed run's process from its last whole run-resumed line, split between reads", async () => {
    const { result } = await runText(gateway.current, LINES);
    const file = path.join(result.runDir, "journal.jsonl");
    const lines = (await readFile(file, "utf8")).replace(/\{"type":"run-finished".*\n/, "");
    // The process that started it is gone and a live one resumed it; the damaged and torn lines after name gone ones.
    const gone = 2 ** 22 + 1;
    const resumed = (pid: number) => JSON.stringify({ type: "run-resumed", at: new Date().toISOString(), pid });
    const [first = "", ...rest] = lines.split("\n");
    const started = first.replace(/"pid":\d+/, `"pid":${gone}`);
    expect(started).not.toBe(first);
    await writeFile(file, [started, resumed(process.pid), ...rest].join("\n"));
    await rm(path.join(result.runDir, LOCK_FILE), { force: true });
    await writeFile(path.join(result.runDir, DISTRIBUTED_FILE), JSON.stringify({ runId: result.runId }));
    await spreadAcrossReads(
      result.runDir,
      '"type":"run-resumed"',
      `${resumed(gone).slice(0, -1)}\n`,
      resumed(gone).slice(0, -1),
    );

    expect((await describeRun(result.runDir))?.state).toBe("running");
  });
});
