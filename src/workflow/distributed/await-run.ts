import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BATCH_KEY } from "../batch/batch-run-body.js";
import { ITEM_RESULTS_FILE } from "../batch/item-results.js";
import type { ErrorSummary, JournalRecord } from "../run/journal-records.js";
import { waitingApproval, type WaitingApproval } from "../run/run-options.js";
import { RunDirLock } from "../run/run-dir-lock.js";
import { JOURNAL_FILE } from "../run/run-workflow.js";
import { costFileContent, writeJsonFile } from "../run/write-run-files.js";
import { CostCallsFile } from "../run/cost-calls-file.js";
import { RunningTotals } from "../../cost/summarize-entries.js";
import {
  doubleBillOf,
  summarizeDoubleBills,
  type PossibleDoubleBill,
  type PossibleDoubleBills,
} from "../run/call-intents.js";
import type { CostEntry } from "../../cost/cost-entry.js";
import { BATCH_FILE, type BatchFile } from "../batch/run-batch.js";
import { parseWorkflow } from "../load/load-workflow.js";
import { writeReportFile } from "../report/write-report-file.js";
import { ReportRecords } from "../run/report-records.js";
import { ItemApprovals } from "./item-approvals.js";
import { RunGate, type RunHalt } from "./run-gate.js";
import type { RunCounts, RunStore, StoredResult } from "./run-store.js";

/** How a distributed run ended, once assembled into its run directory. */
export interface DistributedRunResult extends RunCounts {
  readonly runId: string;
  readonly runDir: string;
  /** waiting: every item left waits for a person's decision (`svc-flow approve RUN_DIR STEP --item N`). */
  readonly status: "done" | "failed" | "stopped" | "waiting";
  /** Set when the run's budget stopped it (resume with a higher --budget finishes it). */
  readonly reason?: "budget";
  /** Why a halted run ended: the budget's refusal, or the item that failed under `onItemError: fail`. */
  readonly error?: ErrorSummary & { readonly index: number };
  readonly costYuan: number;
  /** Calls that may have been billed twice by a gateway that ignores Idempotency-Key (re-sent by a worker that took
   * an item over after its intent was journaled and no bill came); as in cost.json, only when any. */
  readonly possibleDoubleBills?: PossibleDoubleBills;
  /** The questions the items left wait on (each request's key names its item: `items[N].STEP`). */
  readonly waiting?: readonly WaitingApproval[];
  /** Failed items a person rejected (approval_rejected): how many, and the first few with their messages (who, and the note). */
  readonly rejected?: {
    readonly count: number;
    readonly first: readonly (ErrorSummary & { readonly index: number })[];
  };
}

// Enough rejections to show what was said, without holding one per item of a large run.
const REJECTIONS_SHOWN = 5;

/** How far a distributed run is, with the items that wait for a decision. */
export interface RunProgress extends RunCounts {
  readonly waiting: number;
}

/**
 * Waits until every item of a run has a result, or the run was halted (its budget, or a failed item
 * under `fail`) and its items in flight have ended, polling the store; then assembles the run
 * directory. Aborting stops waiting, not the run: the workers go on, and `resume` waits again.
 */
export async function awaitRun(
  store: RunStore,
  runId: string,
  options: { runDir?: string; pollMs?: number; signal?: AbortSignal; onProgress?: (counts: RunProgress) => void } = {},
): Promise<DistributedRunResult> {
  const spec = await store.spec(runId);
  const runDir = path.resolve(options.runDir ?? spec.runDir);
  const gate = new RunGate(store);
  const approvals = new ItemApprovals(store);
  let last = "";
  for (;;) {
    const counts = { ...(await store.counts(runId, spec.total)), waiting: await approvals.count(runId) };
    const shown = `${counts.done}/${counts.failed}/${counts.waiting}`;
    if (shown !== last) options.onProgress?.(counts);
    last = shown;
    // Items waiting for a person go no further: the run ends waiting, and `approve` puts each back.
    if (counts.done + counts.failed + counts.waiting >= counts.total) break;
    if ((await gate.settledHalt(runId)) !== undefined) break;
    if (options.signal?.aborted === true) {
      const { total, done, failed } = counts;
      return { runId, runDir, status: "stopped", costYuan: 0, total, done, failed };
    }
    await sleep(options.pollMs ?? 250, undefined, { signal: options.signal }).catch(() => undefined);
  }
  return assembleRun(store, runId, runDir);
}

/**
 * Writes a finished run's directory from the store: journal.jsonl (the start, each item's steps,
 * costs and result, the end), outputs.jsonl (one line per item, in item order), outputs.json and
 * cost.json. The same files a single-machine batch writes, so `runs` and reports read them alike.
 */
export async function assembleRun(store: RunStore, runId: string, runDir: string): Promise<DistributedRunResult> {
  const spec = await store.spec(runId);
  await mkdir(runDir, { recursive: true });
  const lock = await RunDirLock.acquire(runDir, {
    takenHint: "Another process is writing this run's files; wait for it.",
  });
  try {
    return await writeRunFiles(store, spec, runId, runDir);
  } finally {
    await lock.release();
  }
}

async function writeRunFiles(
  store: RunStore,
  spec: Awaited<ReturnType<RunStore["spec"]>>,
  runId: string,
  runDir: string,
): Promise<DistributedRunResult> {
  const journal = await open(path.join(runDir, JOURNAL_FILE), "w");
  const outputs = await open(path.join(runDir, ITEM_RESULTS_FILE), "w");
  // Totals as the items' journals are read; the entries themselves wait on disk for cost.json's calls.
  const totals = new RunningTotals();
  const calls = new CostCallsFile(runDir);
  const doubles: PossibleDoubleBill[] = [];
  const write = async (record: JournalRecord) => void (await journal.write(`${JSON.stringify(record)}\n`));
  // What the report reads, kept as the journal is written (a row past the report's first page keeps only its media).
  const kept = new ReportRecords({ append: write }, [], { batchKey: BATCH_KEY });
  const line = (record: JournalRecord) => kept.append(record);
  const entries: CostEntry[] = [];
  let done = 0;
  let failed = 0;
  let rejectedCount = 0;
  const rejections: (ErrorSummary & { index: number })[] = [];
  try {
    await line(spec.start);
    const results = new Map<number, StoredResult>();
    for await (const result of store.results(runId)) results.set(result.index, result);
    const asked = await new ItemApprovals(store).waiting(runId);
    const waiting: WaitingApproval[] = [];
    let waitingItems = 0;
    let answeredItems = 0;
    let index = 0;
    // Journals come one per item, in item order.
    for await (const records of store.journals(runId, spec.total)) {
      const at = index++;
      const result = results.get(at);
      for (const record of records) {
        if (record.type === "cost") {
          totals.add(record.entry);
          calls.append(record.entry);
          if (kept.showsCostsOf(record.entry.tags.step)) entries.push(record.entry);
        }
        if (record.type === "cost" && record.possibleDoubleBill === true && record.idempotencyKey !== undefined)
          doubles.push(doubleBillOf(record.entry, record.idempotencyKey));
        await line(record);
      }
      if (result === undefined) {
        const questions = asked.get(at);
        if (questions !== undefined) waitingItems++;
        // Answered with `approve --no-resume`: no longer waiting, not run yet.
        else if (records.some((record) => record.type === "approval-decided")) answeredItems++;
        waiting.push(...(questions ?? []).map(waitingApproval));
        continue;
      }
      const { state, output, error } = result;
      await line({
        type: "item-finished",
        key: BATCH_KEY,
        index: result.index,
        at: new Date().toISOString(),
        ...(output === undefined ? {} : { output }),
        ...(error === undefined ? {} : { error }),
      });
      await outputs.write(`${JSON.stringify(result)}\n`);
      if (state === "done") done++;
      else failed++;
      if (error?.code === "approval_rejected") {
        rejectedCount++;
        if (rejections.length < REJECTIONS_SHOWN) rejections.push({ ...error, index: result.index });
      }
    }
    const left = done + failed < spec.total;
    // Items answered but not yet resumed keep the run waiting on the others' questions; with none left
    // to answer, it waits for `resume` (stopped), as a one-machine run answered with --no-resume does.
    const settled = done + failed + waitingItems;
    const waits = settled >= spec.total || (waitingItems > 0 && settled + answeredItems >= spec.total);
    const unfinished = waits ? "waiting" : "stopped";
    const halted = await new RunGate(store).halted(runId);
    // A budget halt whose items all got results anyway (a resumed run) stopped nothing.
    const halt = halted !== undefined && (left || halted.reason === "failed") ? halted : undefined;
    const { status, reason, error } = outcome(halt, left ? unfinished : failed > 0 ? "failed" : "done");
    const finishedAt = new Date().toISOString();
    await line({
      type: "run-finished",
      status,
      ...(reason === undefined ? {} : { reason }),
      at: finishedAt,
      ...(error === undefined ? {} : { error }),
    });
    await journal.sync();
    const cost = totals.summary();
    const doubleBills = summarizeDoubleBills(doubles);
    await writeJsonFile(path.join(runDir, "cost.json"), costFileContent(cost, doubleBills, calls.calls()));
    const items = { file: ITEM_RESULTS_FILE, total: spec.total, done, failed };
    await writeJsonFile(path.join(runDir, "outputs.json"), { items, runId });
    // batch.json as a one-machine batch leaves it: `runs` counts the items, the report pages the rows.
    const batch: BatchFile = {
      version: 1,
      // A run enqueued before the file was kept: the report shows the rows from their results alone.
      itemsFile: spec.itemsFile ?? "",
      format: spec.itemsFormat ?? "jsonl",
      state: status,
      pid: process.pid,
      total: spec.total,
      done,
      failed,
    };
    await writeJsonFile(path.join(runDir, BATCH_FILE), batch);
    // Failed items collected end a one-machine batch done (its rows show the failures): the report says the same.
    const reported = status === "failed" && error === undefined ? "done" : status;
    await writeReportFile({
      runDir,
      runId,
      workflow: parseWorkflow(spec.workflowText, {
        fileName: spec.start.workflowFile,
        baseDir: spec.start.baseDir,
        allowUnpriced: true,
      }),
      status: reported,
      ...(reason === undefined ? {} : { reason }),
      ...(error === undefined ? {} : { error: nextStep(error, runId) }),
      inputs: spec.start.inputs,
      ...(reported === "done" ? { outputs: { items } } : {}),
      cost,
      entries,
      journal: kept.records,
      startedAt: spec.start.startedAt,
      finishedAt,
      // The items' state is in Redis: approve finds it there.
      approveFlags: "--redis URL",
    });
    const why = halt === undefined ? {} : { error: { ...halt.error, index: halt.index } };
    return {
      runId,
      runDir,
      status,
      ...(reason === undefined ? {} : { reason }),
      ...why,
      total: spec.total,
      done,
      failed,
      costYuan: cost.totalYuan,
      ...(doubles.length === 0 ? {} : { possibleDoubleBills: doubleBills }),
      ...(status === "waiting" ? { waiting } : {}),
      ...(rejectedCount === 0 ? {} : { rejected: { count: rejectedCount, first: rejections } }),
    };
  } finally {
    await journal.close();
    await outputs.close();
    await calls.remove();
  }
}

// The report's banner says how to go on: a distributed run goes on with `resume RUN_ID --redis URL`, and a
// rejection is not undone by resuming.
function nextStep(error: ErrorSummary, runId: string): ErrorSummary {
  const next =
    error.code === "approval_rejected"
      ? "a person's rejection is final in this run (resume would replay it), so to ask again start a new run."
      : `continue with: svc-flow resume ${runId} --redis URL`;
  return { ...error, message: `${error.message} Finished steps are kept; ${next}` };
}

// A halted run with items left ends as its halt says: stopped by the budget, or failed with the item's error.
function outcome(
  halt: RunHalt | undefined,
  status: DistributedRunResult["status"],
): { status: DistributedRunResult["status"]; reason?: "budget"; error?: ErrorSummary } {
  if (halt === undefined) return { status };
  return halt.reason === "budget"
    ? { status: "stopped", reason: "budget", error: halt.error }
    : { status: "failed", error: halt.error };
}
